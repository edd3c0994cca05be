#include "upstream/CurlTransfer.h"

#include "upstream/TransferDeadlines.h"

#include <algorithm>
#include <cerrno>
#include <new>
#include <sys/socket.h>

namespace sy::upstream::detail {

namespace {

// curl sends a POSTFIELDS body of up to 64 KiB in the same write as the request head, so for
// those the request is sent the moment the connection is ready. Larger bodies are written in
// pieces, and their first-byte window starts only when the last piece is out.
constexpr qint64 kBodyInHeadLimit = 64 * 1024;

constexpr char kNoBody[] = "";

bool isReservedRequestHeader(QByteArrayView name)
{
    // curl derives these from the body; a caller's copy could contradict it and break framing.
    return name.compare("content-length", Qt::CaseInsensitive) == 0
        || name.compare("transfer-encoding", Qt::CaseInsensitive) == 0
        || name.compare("expect", Qt::CaseInsensitive) == 0;
}

bool isSafeHeaderText(QByteArrayView text)
{
    // A CR or LF would let a value inject headers; curl sends a line as given.
    for (char c : text) {
        if (c == '\r' || c == '\n' || c == '\0')
            return false;
    }
    return true;
}

QByteArrayView trimmed(QByteArrayView text)
{
    qsizetype begin = 0;
    qsizetype end = text.size();
    while (begin < end && (text[begin] == ' ' || text[begin] == '\t'))
        ++begin;
    while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r'
                           || text[end - 1] == '\n'))
        --end;
    return text.sliced(begin, end - begin);
}

int parseStatus(QByteArrayView statusLine)
{
    // "HTTP/1.1 200 OK", "HTTP/2 200 "
    const qsizetype space = statusLine.indexOf(' ');
    if (space < 0 || statusLine.size() < space + 4)
        return 0;
    int status = 0;
    for (qsizetype i = space + 1; i < space + 4; ++i) {
        const char c = statusLine[i];
        if (c < '0' || c > '9')
            return 0;
        status = status * 10 + (c - '0');
    }
    return status;
}

} // namespace

CurlTransfer::CurlTransfer(TransferDeadlines *deadlines, ConnectionGate *gate)
    : easy_(curl_easy_init()), deadlines_(deadlines), connectionGate_(gate)
{
    if (!easy_)
        throw std::bad_alloc();
    errorBuffer_[0] = '\0';
    curl_easy_setopt(easy_, CURLOPT_PRIVATE, this);
    curl_easy_setopt(easy_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, errorBuffer_);
    curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, &CurlTransfer::onBody);
    curl_easy_setopt(easy_, CURLOPT_WRITEDATA, this);
    curl_easy_setopt(easy_, CURLOPT_HEADERFUNCTION, &CurlTransfer::onHeaderLine);
    curl_easy_setopt(easy_, CURLOPT_HEADERDATA, this);
    curl_easy_setopt(easy_, CURLOPT_PREREQFUNCTION, &CurlTransfer::onRequestReady);
    curl_easy_setopt(easy_, CURLOPT_PREREQDATA, this);
    curl_easy_setopt(easy_, CURLOPT_XFERINFOFUNCTION, &CurlTransfer::onProgress);
    curl_easy_setopt(easy_, CURLOPT_XFERINFODATA, this);
    curl_easy_setopt(easy_, CURLOPT_OPENSOCKETFUNCTION, &CurlTransfer::onOpenSocket);
    curl_easy_setopt(easy_, CURLOPT_OPENSOCKETDATA, this);
    curl_easy_setopt(easy_, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy_, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_2TLS));
    // A proxy's CONNECT answer is not the upstream's response.
    curl_easy_setopt(easy_, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
    // Long streams through NAT and load balancers: keep quiet connections alive.
    curl_easy_setopt(easy_, CURLOPT_TCP_KEEPALIVE, 1L);
    // The request leaves in one write and must not wait for Nagle behind a delayed ACK (curl's
    // default since 7.50.2; set here so a build against another libcurl does the same).
    curl_easy_setopt(easy_, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, kNoBody);
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(0));
    // The upload buffer: over TLS curl copies the request into it before sending (OpenSSL wants
    // the same pointer on a retried write) and keeps it with the handle, 64 KiB by default — per
    // stream in flight, and the handles are pooled. The body is POSTFIELDS, already in memory: a
    // larger body just leaves in more pieces. 16 KiB is curl's minimum.
    curl_easy_setopt(easy_, CURLOPT_UPLOAD_BUFFERSIZE, 16L * 1024);
    // curl's built-in CA locations (the system store), restored when a request names none.
    const char *caInfo = nullptr;
    const char *caPath = nullptr;
    if (curl_easy_getinfo(easy_, CURLINFO_CAINFO, &caInfo) == CURLE_OK && caInfo)
        defaultCaInfo_ = caInfo;
    if (curl_easy_getinfo(easy_, CURLINFO_CAPATH, &caPath) == CURLE_OK && caPath)
        defaultCaPath_ = caPath;
}

CurlTransfer::~CurlTransfer()
{
    curl_easy_cleanup(easy_);
    curl_url_cleanup(url_);
    curl_slist_free_all(requestHeaders_);
}

CurlTransfer *CurlTransfer::fromEasy(CURL *easy)
{
    char *self = nullptr;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, &self);
    return reinterpret_cast<CurlTransfer *>(self);
}

bool CurlTransfer::prepare(TransferId id, UpstreamRequest &&request, StreamHandler *handler)
{
    id_ = id;
    handler_ = handler;
    body_ = std::move(request.body);
    responseHeaders_.clear();
    status_ = 0;
    headersDelivered_ = false;
    phase_ = Phase::Connecting;
    deadlineMs_ = 0;
    uploadedBytes_ = 0;
    requestSent_ = false;
    resendRefused_ = false;
    socketErrno_ = 0;
    firstByteTimeoutMs_ = std::max<qint64>(0, request.firstByteTimeout.count());
    idleTimeoutMs_ = std::max<qint64>(0, request.idleTimeout.count());
    errorBuffer_[0] = '\0';

    const QByteArray &method = request.method;
    const bool head = method == "HEAD";
    const bool sendsBody = !head
        && (!body_.isEmpty() || method == "POST" || method == "PUT" || method == "PATCH");
    const char *naturalMethod = head ? "HEAD" : (sendsBody ? "POST" : "GET");
    const bool customMethod = !method.isEmpty() && method != naturalMethod;
    trackUpload_ = sendsBody && body_.size() > kBodyInHeadLimit;

    if (!setRequestHeaders(request.headers, sendsBody))
        return false;

    bool ok = setUrl(request.url);
    ok = ok && curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, requestHeaders_) == CURLE_OK;
    ok = ok && curl_easy_setopt(easy_, CURLOPT_CUSTOMREQUEST,
                                customMethod ? method.constData() : nullptr) == CURLE_OK;
    if (!ok)
        return false;
    // HTTPS: a request that starts while a connection to the same host is still in its handshake
    // waits for it and multiplexes on it when ALPN picks HTTP/2, instead of opening its own TLS
    // connection (a burst of an agent's parallel calls: one handshake, not one per call). ALPN
    // settles that at the handshake. Plain HTTP has no ALPN: curl would hold the others until the
    // first answer's headers, so they connect at once.
    curl_easy_setopt(easy_, CURLOPT_PIPEWAIT, qstrnicmp(request.url.constData(), "https:", 6) == 0 ? 1L : 0L);
    // Every request sets all three so a pooled handle carries nothing over from its last use.
    if (head) {
        curl_easy_setopt(easy_, CURLOPT_NOBODY, 1L);
    } else if (sendsBody) {
        curl_easy_setopt(easy_, CURLOPT_NOBODY, 0L);
        curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body_.size()));
        curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, body_.constData());
    } else {
        curl_easy_setopt(easy_, CURLOPT_HTTPGET, 1L);
    }
    curl_easy_setopt(easy_, CURLOPT_NOPROGRESS, trackUpload_ ? 0L : 1L);
    curl_easy_setopt(easy_, CURLOPT_CONNECTTIMEOUT_MS,
                     long(std::max<qint64>(0, request.connectTimeout.count())));
    curl_easy_setopt(easy_, CURLOPT_SSL_VERIFYPEER, request.verifyTls ? 1L : 0L);
    curl_easy_setopt(easy_, CURLOPT_SSL_VERIFYHOST, request.verifyTls ? 2L : 0L);
    // A pooled handle keeps its last values, so these follow every request, set again only when
    // they differ from the last: a CA file replaces the system store; no CA file restores curl's
    // built-in defaults.
    if (caFileSet_ != request.caFile) {
        if (request.caFile.isEmpty()) {
            curl_easy_setopt(easy_, CURLOPT_CAINFO, defaultCaInfo_.isEmpty() ? nullptr : defaultCaInfo_.constData());
            curl_easy_setopt(easy_, CURLOPT_CAPATH, defaultCaPath_.isEmpty() ? nullptr : defaultCaPath_.constData());
        } else {
            curl_easy_setopt(easy_, CURLOPT_CAINFO, request.caFile.constData());
            curl_easy_setopt(easy_, CURLOPT_CAPATH, nullptr);
        }
        caFileSet_ = request.caFile;
    }
    // NULL lets curl read the proxy environment variables; a value overrides them.
    if (proxySet_ != request.proxy) {
        curl_easy_setopt(easy_, CURLOPT_PROXY, request.proxy.isEmpty() ? nullptr : request.proxy.constData());
        proxySet_ = request.proxy;
    }
    return true;
}

bool CurlTransfer::setUrl(const QByteArray &url)
{
    if (url != urlText_ || url.isEmpty()) {
        urlText_.clear();
        if (!url_)
            url_ = curl_url();
        // The flags curl itself parses a CURLOPT_URL string with (no CURLOPT_PATH_AS_IS, user
        // names in URLs allowed): the same URL gives the same parts. A URL it refuses is left to
        // CURLOPT_URL alone, so the transfer fails with curl's own error as before.
        if (url_ && !url.isEmpty()
            && curl_url_set(url_, CURLUPART_URL, url.constData(),
                            CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK)
            urlText_ = url;
    }
    // CURLOPT_URL too: libcurl 7.88 takes a reused handle's URL text (CURLINFO_EFFECTIVE_URL)
    // from it and, with CURLU alone, would keep the previous transfer's. CURLOPT_CURLU overrides
    // it for the parts curl connects to and sends.
    return curl_easy_setopt(easy_, CURLOPT_URL, url.constData()) == CURLE_OK
        && curl_easy_setopt(easy_, CURLOPT_CURLU, urlText_.isEmpty() ? nullptr : url_) == CURLE_OK;
}

bool CurlTransfer::setRequestHeaders(const HeaderList &headers, bool hasBody)
{
    if (requestHeaders_ && hasBody == requestHeadersHaveBody_ && headers == requestHeadersFrom_)
        return true;
    curl_slist_free_all(requestHeaders_);
    requestHeaders_ = nullptr;
    requestHeadersFrom_.clear();
    if (!appendRequestHeaders(headers, hasBody)) {
        curl_slist_free_all(requestHeaders_);  // a part of the list: never reused
        requestHeaders_ = nullptr;
        return false;
    }
    requestHeadersFrom_ = headers;
    requestHeadersHaveBody_ = hasBody;
    return true;
}

bool CurlTransfer::appendRequestHeaders(const HeaderList &headers, bool hasBody)
{
    bool hasContentType = false;
    auto append = [this](const char *line) {
        curl_slist *grown = curl_slist_append(requestHeaders_, line);
        if (grown)
            requestHeaders_ = grown;
        return grown != nullptr;
    };
    for (const auto &[name, value] : headers) {
        if (name.isEmpty() || name.contains(':') || !isSafeHeaderText(name)
            || !isSafeHeaderText(value) || isReservedRequestHeader(name))
            continue;
        hasContentType = hasContentType
            || name.compare("content-type", Qt::CaseInsensitive) == 0;
        scratch_.assign(name.constData(), size_t(name.size()));
        if (value.isEmpty()) {
            scratch_ += ';';  // curl's spelling of "send this header with an empty value"
        } else {
            scratch_ += ": ";
            scratch_.append(value.constData(), size_t(value.size()));
        }
        if (!append(scratch_.c_str()))
            return false;
    }
    // curl would otherwise add "Expect: 100-continue" to large bodies (a round trip of delay)
    // and a form-urlencoded Content-Type to bodies that came without one.
    if (hasBody && !append("Expect:"))
        return false;
    if (hasBody && !hasContentType && !append("Content-Type:"))
        return false;
    return true;
}

void CurlTransfer::release()
{
    curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, nullptr);
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, kNoBody);
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(0));
    body_ = QByteArray();
    responseHeaders_.clear();
    handler_ = nullptr;
    id_ = 0;
    deadlineMs_ = 0;
    inMulti = false;
    removalPending = false;
    paused = false;
    resumeQueued = false;
}

void CurlTransfer::restartDeadline()
{
    const qint64 window = phase_ == Phase::Receiving ? idleTimeoutMs_
        : phase_ == Phase::Connecting               ? 0  // curl's own connect timeout applies
                                                    : firstByteTimeoutMs_;
    deadlineMs_ = window ? deadlines_->refresh() + window : 0;
    if (deadlineMs_)
        deadlines_->arm(deadlineMs_);
}

void CurlTransfer::noteReceived()
{
    const qint64 now = deadlines_->nowMs();
    if (phase_ != Phase::Receiving) {
        // The idle window may be shorter than what was left of the first-byte window.
        phase_ = Phase::Receiving;
        deadlineMs_ = idleTimeoutMs_ && !paused ? now + idleTimeoutMs_ : 0;
        if (deadlineMs_)
            deadlines_->arm(deadlineMs_);
    } else if (idleTimeoutMs_ && !paused) {
        deadlineMs_ = now + idleTimeoutMs_;  // later than before: no re-arm needed
    }
}

size_t CurlTransfer::onHeaderLine(char *data, size_t size, size_t count, void *self)
{
    auto *t = static_cast<CurlTransfer *>(self);
    const size_t bytes = size * count;
    if (!t->handler_)
        return 0;
    t->noteReceived();
    if (t->headersDelivered_)
        return bytes;  // trailers of a chunked body: not part of this interface
    const QByteArrayView line(data, qsizetype(bytes));
    if (line.startsWith("HTTP/")) {
        if (t->connectionGate_ && t->gate.origin >= 0)
            t->connectionGate_->responseVersion(t, line.startsWith("HTTP/2"));
        t->status_ = parseStatus(trimmed(line));
        t->responseHeaders_.clear();
        return bytes;
    }
    if (trimmed(line).isEmpty()) {
        if (t->status_ >= 100 && t->status_ < 200) {
            // An interim response (100 Continue, 103 Early Hints); the final one follows.
            t->status_ = 0;
            t->responseHeaders_.clear();
            return bytes;
        }
        t->headersDelivered_ = true;
        t->handler_->onHeaders(t->status_, t->responseHeaders_);
        return t->handler_ ? bytes : 0;
    }
    t->parseHeaderLine(line);
    return bytes;
}

void CurlTransfer::parseHeaderLine(QByteArrayView line)
{
    if ((line.front() == ' ' || line.front() == '\t') && !responseHeaders_.isEmpty()) {
        // Obsolete line folding: a continuation of the previous value.
        QByteArray &value = responseHeaders_.last().second;
        value += ' ';
        value += trimmed(line);
        return;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0)
        return;
    const QByteArrayView value = trimmed(line.sliced(colon + 1));
    responseHeaders_.append({http::lowerCaseHeaderName(line.first(colon)), QByteArray(value.data(), value.size())});
}

size_t CurlTransfer::onBody(char *data, size_t size, size_t count, void *self)
{
    auto *t = static_cast<CurlTransfer *>(self);
    const size_t bytes = size * count;
    if (!t->handler_ || !t->headersDelivered_)
        return CURL_WRITEFUNC_ERROR;
    t->noteReceived();
    // A deep copy: a handler may keep the bytes, and curl reuses its buffer.
    t->handler_->onChunk(QByteArray(data, qsizetype(bytes)));
    return t->handler_ ? bytes : CURL_WRITEFUNC_ERROR;
}

int CurlTransfer::onRequestReady(void *self, char *, char *, int, int)
{
    auto *t = static_cast<CurlTransfer *>(self);
    if (!t->handler_)
        return CURL_PREREQFUNC_ABORT;
    // curl calls this once per request it is about to write. A second call means curl wants to
    // send the same request again on a fresh connection — it does that silently when a reused
    // keep-alive connection dies after the request went out. The upstream may already have
    // processed the first copy (a double charge), so the re-send is refused and reported; the
    // failover layer then decides, as for any other attempt.
    if (t->requestSent_) {
        t->resendRefused_ = true;
        return CURL_PREREQFUNC_ABORT;
    }
    t->requestSent_ = true;
    if (t->connectionGate_ && t->gate.origin >= 0) {
        curl_socket_t socket = CURL_SOCKET_BAD;
        curl_easy_getinfo(t->easy_, CURLINFO_ACTIVESOCKET, &socket);
        t->connectionGate_->requestSent(t, socket);
    }
    t->phase_ = t->trackUpload_ ? Phase::Sending : Phase::AwaitingFirstByte;
    t->uploadedBytes_ = 0;
    t->deadlineMs_ = t->firstByteTimeoutMs_ ? t->deadlines_->nowMs() + t->firstByteTimeoutMs_ : 0;
    if (t->deadlineMs_)
        t->deadlines_->arm(t->deadlineMs_);
    return CURL_PREREQFUNC_OK;
}

curl_socket_t CurlTransfer::onOpenSocket(void *self, curlsocktype, curl_sockaddr *address)
{
    // What curl's own does, keeping the errno that curl drops.
    const curl_socket_t socket = ::socket(address->family, address->socktype, address->protocol);
    if (socket == CURL_SOCKET_BAD)
        static_cast<CurlTransfer *>(self)->socketErrno_ = errno;
    return socket;
}

int CurlTransfer::onProgress(void *self, curl_off_t, curl_off_t, curl_off_t, curl_off_t uploaded)
{
    auto *t = static_cast<CurlTransfer *>(self);
    if (!t->handler_)
        return 1;
    if (t->phase_ != Phase::Sending || uploaded <= t->uploadedBytes_)
        return 0;
    // While the body moves, the first-byte window restarts; a stalled upload runs it out.
    t->uploadedBytes_ = uploaded;
    if (uploaded >= t->body_.size())
        t->phase_ = Phase::AwaitingFirstByte;
    if (t->firstByteTimeoutMs_)
        t->deadlineMs_ = t->deadlines_->nowMs() + t->firstByteTimeoutMs_;
    return 0;
}

} // namespace sy::upstream::detail
