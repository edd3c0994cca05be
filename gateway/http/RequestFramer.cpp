#include "http/RequestFramer.h"

#include <algorithm>
#include <optional>

namespace sy::http {

namespace {

QByteArray requestPath(const QByteArray &headerBlock)
{
    // The second space-separated field of the request line, without its query.
    const qsizetype lineEnd = headerBlock.indexOf("\r\n");
    const QByteArrayView line = QByteArrayView(headerBlock).first(lineEnd < 0 ? headerBlock.size() : lineEnd);
    const qsizetype start = line.indexOf(' ');
    if (start < 0)
        return {};
    const qsizetype end = line.indexOf(' ', start + 1);
    QByteArrayView target = line.sliced(start + 1, (end < 0 ? line.size() : end) - start - 1);
    if (const qsizetype query = target.indexOf('?'); query >= 0)
        target = target.first(query);
    return target.toByteArray();
}

// End of a header block: the first blank line, CRLF or bare LF as QtHttpServer's parser accepts.
// Returns the offset just past it, or -1.
qsizetype headerBlockEnd(const QByteArray &buffer, qsizetype from)
{
    for (qsizetype i = buffer.indexOf('\n', from); i >= 0; i = buffer.indexOf('\n', i + 1)) {
        if (i + 1 < buffer.size() && buffer.at(i + 1) == '\n')
            return i + 2;
        if (i + 2 < buffer.size() && buffer.at(i + 1) == '\r' && buffer.at(i + 2) == '\n')
            return i + 3;
    }
    return -1;
}

// What QtHttpServer 6.4 skips before a request line (e.g. the CRLF some clients send after a body).
bool isLeadingSpace(char c)
{
    return c == '\v' || c == '\n' || c == '\r' || c == ' ' || c == '\t';
}

QByteArray knownMethod(QByteArrayView method)
{
    // The methods QtHttpServer 6.4's parser knows, case-sensitive as there; TRACE is not one.
    for (const char *known : {"GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "CONNECT"}) {
        if (method == known)
            return QByteArray(known);
    }
    return QByteArrayLiteral("UNKNOWN");
}

// `method SP+ target SP+ HTTP/x.y [SP ...]`, as QtHttpServer 6.4 splits it. False when it
// would refuse the line.
bool parseRequestLine(QByteArrayView line, FramedRequest &out)
{
    if (line.endsWith('\r'))
        line.chop(1);
    qsizetype i = line.indexOf(' ');
    if (i <= 0)
        return false;
    const QByteArrayView method = line.first(i);
    while (i < line.size() && line[i] == ' ')
        ++i;
    const qsizetype j = line.indexOf(' ', i);
    if (j < 0)
        return false;
    const QByteArrayView target = line.sliced(i, j - i);
    i = j;
    while (i < line.size() && line[i] == ' ')
        ++i;
    if (i >= line.size())
        return false;
    const qsizetype k = line.indexOf(' ', i);
    const QByteArrayView protocol = k < 0 ? line.sliced(i) : line.sliced(i, k - i);
    if (protocol.size() != 8 || !protocol.startsWith("HTTP"))
        return false;
    out.method = knownMethod(method);
    out.target = target.toByteArray();
    out.http10 = protocol == "HTTP/1.0";
    return true;
}

bool containsToken(const QByteArray &value, QByteArrayView token)
{
    return QByteArrayView(value).contains(token)
        || value.toLower().contains(token);
}

} // namespace

void RequestFramer::requestComplete()
{
    m_framed.push_back(std::move(m_current));
    m_current = FramedRequest{};
    m_state = State::Headers;
    m_path.clear();
    ++m_completedInFeed;
}

RequestFramer::Verdict RequestFramer::feed(QByteArrayView bytes)
{
    Verdict verdict = Verdict::Ok;
    m_completedInFeed = 0;
    QByteArray rest;  // keeps the bytes after a header block alive while `bytes` views them
    while (!bytes.isEmpty()) {
        switch (m_state) {
        case State::Headers: {
            if (m_buffer.isEmpty()) {
                const auto start = std::find_if_not(bytes.begin(), bytes.end(), isLeadingSpace);
                bytes = bytes.sliced(start - bytes.begin());
                if (bytes.isEmpty())
                    return verdict;
            }
            // Search only the new bytes plus the 2 before them for the blank line.
            const qsizetype from = std::max<qsizetype>(0, m_buffer.size() - 2);
            m_buffer.append(bytes.data(), bytes.size());
            bytes = {};
            const qsizetype end = headerBlockEnd(m_buffer, from);
            if (m_path.isEmpty() && m_buffer.contains('\n'))
                m_path = requestPath(m_buffer);
            if (end < 0) {
                if (m_buffer.size() > m_limits.maxHeaderBytes)
                    return Verdict::HeaderTooLarge;
                return verdict;
            }
            if (end > m_limits.maxHeaderBytes)
                return Verdict::HeaderTooLarge;
            if (end < m_buffer.size()) {
                rest = m_buffer.mid(end);
                m_buffer.truncate(end);
            } else {
                rest.clear();
            }
            const Verdict v = headersComplete();
            if (v != Verdict::Ok && v != Verdict::ExpectContinue)
                return v;
            if (v == Verdict::ExpectContinue)
                verdict = v;
            // The remainder is body, or the next pipelined request.
            bytes = QByteArrayView(rest);
            break;
        }
        case State::Body: {
            const qint64 take = std::min<qint64>(m_remaining, bytes.size());
            m_current.body.append(bytes.data(), take);
            m_remaining -= take;
            bytes = bytes.sliced(take);
            if (m_remaining == 0)
                requestComplete();
            break;
        }
        default: {
            const qsizetype used = feedChunked(bytes, verdict);
            if (verdict == Verdict::BodyTooLarge || verdict == Verdict::BadFraming)
                return verdict;
            bytes = bytes.sliced(used);
            break;
        }
        }
    }
    return verdict;
}

RequestFramer::Verdict RequestFramer::headersComplete()
{
    FramedRequest &request = m_current;
    // Walks the block in place (views, no copies of lines): this runs for every request.
    const QByteArrayView block(m_buffer);
    qsizetype lineStart = block.indexOf('\n');  // line 0 is the request line
    if (!parseRequestLine(block.first(lineStart), request))
        return Verdict::Malformed;
    request.headers.reserve(8);
    while (lineStart >= 0) {
        ++lineStart;
        const qsizetype lineEnd = block.indexOf('\n', lineStart);
        const QByteArrayView line = block.sliced(lineStart, (lineEnd < 0 ? block.size() : lineEnd) - lineStart);
        lineStart = lineEnd;
        const QByteArrayView trimmed = line.trimmed();
        if (trimmed.isEmpty())
            continue;  // the blank line(s) ending the block
        if (line.front() == ' ' || line.front() == '\t') {
            // A folded line continues the previous field's value (obsolete, still accepted).
            if (request.headers.isEmpty())
                return Verdict::BadFraming;
            QByteArray &value = request.headers.last().second;
            if (!value.isEmpty())
                value += ' ';
            value += trimmed;
            continue;
        }
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return Verdict::BadFraming;  // not a header field: the block cannot be framed safely
        request.headers.append({lowerCaseHeaderName(line.first(colon).trimmed()), line.sliced(colon + 1).trimmed().toByteArray()});
    }
    m_buffer.clear();

    std::optional<qint64> contentLength;
    int transferEncodings = 0;
    bool chunked = false;
    bool expectContinue = false;
    for (const auto &[name, value] : std::as_const(request.headers)) {
        if (name == "content-length") {
            bool ok = false;
            const qint64 length = value.toLongLong(&ok);
            // Two different lengths: a front and a backend could frame the body differently.
            if (!ok || length < 0 || (contentLength && *contentLength != length))
                return Verdict::BadFraming;
            contentLength = length;
        } else if (name == "transfer-encoding") {
            ++transferEncodings;
            chunked = containsToken(value, "chunked");
        } else if (name == "expect") {
            expectContinue = value.compare("100-continue", Qt::CaseInsensitive) == 0;
        } else if (name == "connection") {
            request.keepAlive = request.keepAlive || containsToken(value, "keep-alive");
            request.upgrade = request.upgrade || containsToken(value, "upgrade");
        }
    }
    // RFC 9112 6.3: both, or several encodings, is how requests are smuggled past a front.
    if (transferEncodings > 1 || (transferEncodings == 1 && contentLength))
        return Verdict::BadFraming;
    if (contentLength.value_or(0) > m_limits.maxBodyBytes)
        return Verdict::BodyTooLarge;
    if (chunked) {
        m_state = State::ChunkSize;
        m_bodySeen = 0;
    } else if (contentLength.value_or(0) > 0) {
        m_state = State::Body;
        m_remaining = *contentLength;
        // What arrives is appended; the announced size is reserved only up to a bound, so a
        // client that announces much and sends little costs no more than it sent.
        request.body.reserve(qsizetype(std::min<qint64>(m_remaining, 256 * 1024)));
    } else {
        requestComplete();
    }
    return expectContinue && m_state != State::Headers ? Verdict::ExpectContinue : Verdict::Ok;
}

std::optional<FramedRequest> RequestFramer::takeFramed()
{
    if (m_framed.empty())
        return std::nullopt;
    FramedRequest framed = std::move(m_framed.front());
    m_framed.pop_front();
    return framed;
}

qsizetype RequestFramer::feedChunked(QByteArrayView bytes, Verdict &verdict)
{
    switch (m_state) {
    case State::ChunkSize:
    case State::Trailers:
    case State::ChunkDataEnd: {
        const qsizetype nl = bytes.indexOf('\n');
        if (nl < 0) {
            m_buffer.append(bytes.data(), bytes.size());
            if (m_buffer.size() > 4096)
                verdict = Verdict::BodyTooLarge;  // an endless size/trailer line is abuse too
            return bytes.size();
        }
        m_buffer.append(bytes.data(), nl + 1);
        const QByteArray line = m_buffer.trimmed();
        m_buffer.clear();
        if (m_state == State::ChunkDataEnd) {
            m_state = State::ChunkSize;
        } else if (m_state == State::Trailers) {
            if (line.isEmpty())
                requestComplete();
        } else {
            bool ok = false;
            const qint64 size = line.split(';').first().trimmed().toLongLong(&ok, 16);
            if (!ok || size < 0) {
                verdict = Verdict::BadFraming;
                return nl + 1;
            }
            m_bodySeen += size;
            if (m_bodySeen > m_limits.maxBodyBytes) {
                verdict = Verdict::BodyTooLarge;
                return nl + 1;
            }
            m_remaining = size;
            m_state = size == 0 ? State::Trailers : State::ChunkData;
        }
        return nl + 1;
    }
    case State::ChunkData: {
        const qint64 take = std::min<qint64>(m_remaining, bytes.size());
        m_current.body.append(bytes.data(), take);
        m_remaining -= take;
        if (m_remaining == 0)
            m_state = State::ChunkDataEnd;
        return take;
    }
    default:
        return bytes.size();
    }
}

} // namespace sy::http
