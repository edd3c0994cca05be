#pragma once
// SseParser: splits a byte stream of Server-Sent Events into events as bytes arrive in arbitrary
// pieces. Only what LLM APIs use: `event:` and `data:` fields (several data lines join with \n),
// comments ignored, LF or CRLF line ends.
//
// Bounded memory: one event (its lines so far plus the line still without its end) may hold at
// most maxEventBytes (default 1 MiB). Past that the parser *overflows*: it drops what it buffered,
// overflowed() turns true for good and every later feed() returns nothing. An overflow is never a
// clean end — the caller treats it as an upstream failure (SPEC §5: before the first chunk it
// fails over, after it the stream ends with the interrupted-stream signal, no [DONE]).
#include <QByteArray>
#include <vector>

namespace sy::api {

struct SseEvent {
    QByteArray event;  // empty when the event had no `event:` field
    QByteArray data;
};

class SseParser {
public:
    static constexpr qsizetype kDefaultMaxEventBytes = 1024 * 1024;

    SseParser() = default;
    explicit SseParser(qsizetype maxEventBytes) : m_maxEventBytes(maxEventBytes) {}
    // A new cap for the event being parsed and the ones after it (bytes, > 0).
    void setMaxEventBytes(qsizetype bytes) { m_maxEventBytes = bytes; }
    qsizetype maxEventBytes() const { return m_maxEventBytes; }

    // Appends bytes and returns every event completed by them, in order. On overflow it returns
    // the events completed before the oversized one; check overflowed() after every call.
    std::vector<SseEvent> feed(const QByteArray &bytes);
    // True once an event grew past maxEventBytes (sticky).
    bool overflowed() const { return m_overflowed; }
    // Bytes received that do not yet form a complete event.
    qsizetype pendingBytes() const { return m_buffer.size() - m_consumed + m_eventBytes; }

private:
    void takeLine(QByteArrayView line, std::vector<SseEvent> &out);
    void overflow();

    QByteArray m_buffer;
    qsizetype m_consumed = 0;
    SseEvent m_current;
    bool m_hasField = false;
    bool m_hasData = false;
    qsizetype m_eventBytes = 0;   // bytes of complete lines of the event not yet ended
    qsizetype m_maxEventBytes = kDefaultMaxEventBytes;
    bool m_overflowed = false;
};

} // namespace sy::api
