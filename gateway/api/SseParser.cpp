#include "api/SseParser.h"

namespace sy::api {

std::vector<SseEvent> SseParser::feed(const QByteArray &bytes)
{
    std::vector<SseEvent> out;
    if (m_overflowed)
        return out;
    m_buffer.append(bytes);
    while (true) {
        const qsizetype nl = m_buffer.indexOf('\n', m_consumed);
        if (nl < 0)
            break;
        qsizetype end = nl;
        if (end > m_consumed && m_buffer.at(end - 1) == '\r')
            --end;
        takeLine(QByteArrayView(m_buffer).sliced(m_consumed, end - m_consumed), out);
        m_eventBytes = m_hasField ? m_eventBytes + (nl + 1 - m_consumed) : 0;
        m_consumed = nl + 1;
        if (m_eventBytes > m_maxEventBytes) {
            overflow();
            return out;
        }
    }
    if (pendingBytes() > m_maxEventBytes) {
        overflow();
        return out;
    }
    // Compact once the consumed prefix dominates, so long streams stay O(n).
    if (m_consumed > 4096 && m_consumed * 2 > m_buffer.size()) {
        m_buffer.remove(0, m_consumed);
        m_consumed = 0;
    } else if (m_consumed == m_buffer.size()) {
        m_buffer.clear();
        m_consumed = 0;
    }
    return out;
}

void SseParser::overflow()
{
    m_overflowed = true;
    m_buffer = QByteArray();
    m_consumed = 0;
    m_current = {};
    m_hasField = false;
    m_hasData = false;
    m_eventBytes = 0;
}

void SseParser::takeLine(QByteArrayView line, std::vector<SseEvent> &out)
{
    if (line.isEmpty()) {
        if (m_hasField)
            out.push_back(std::move(m_current));
        m_current = {};
        m_hasField = false;
        m_hasData = false;
        return;
    }
    if (line.front() == ':')
        return;
    const qsizetype colon = line.indexOf(':');
    QByteArrayView field = colon < 0 ? line : line.first(colon);
    QByteArrayView value = colon < 0 ? QByteArrayView() : line.sliced(colon + 1);
    if (!value.isEmpty() && value.front() == ' ')
        value = value.sliced(1);
    if (field == "data") {
        if (m_hasData)
            m_current.data += '\n';
        m_current.data += value;
        m_hasField = true;
        m_hasData = true;
    } else if (field == "event") {
        m_current.event = value.toByteArray();
        m_hasField = true;
    }
}

} // namespace sy::api
