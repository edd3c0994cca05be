#pragma once
// SseParser: splits a byte stream of Server-Sent Events into events as bytes arrive in arbitrary
// pieces. Only what LLM APIs use: `event:` and `data:` fields (several data lines join with \n),
// comments ignored, LF or CRLF line ends.
#include <QByteArray>
#include <vector>

namespace sy::api {

struct SseEvent {
    QByteArray event;  // empty when the event had no `event:` field
    QByteArray data;
};

class SseParser {
public:
    // Appends bytes and returns every event completed by them, in order.
    std::vector<SseEvent> feed(const QByteArray &bytes);
    // Bytes received that do not yet form a complete event.
    qsizetype pendingBytes() const { return m_buffer.size() - m_consumed + m_eventBytes; }

private:
    void takeLine(QByteArrayView line, std::vector<SseEvent> &out);

    QByteArray m_buffer;
    qsizetype m_consumed = 0;
    SseEvent m_current;
    bool m_hasField = false;
    bool m_hasData = false;
    qsizetype m_eventBytes = 0;   // bytes of complete lines of the event not yet ended
};

} // namespace sy::api
