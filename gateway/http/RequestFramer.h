#pragma once
// RequestFramer: incremental HTTP/1.1 request reading for one connection. It follows the framing
// (header block, Content-Length or chunked body, pipelined requests) with block operations on
// the bytes it is fed, enforces the limits while bytes arrive, and hands over every complete
// request: request line, header fields and decoded body.
//
// It replaces QtHttpServer 6.4's own request parser on the hot path: that parser reads the
// request line and the header block one byte per QIODevice::read() inside a socket transaction
// (about 290 instructions per header byte, docs/benchmarks/throughput.md, "2026-12-02, the front
// reads its requests itself"). What it accepts follows QtHttpServer 6.4: a header block ends at
// the first blank line, CRLF or bare LF; whitespace before a request line is skipped; the
// request line is `method SP+ target SP+ HTTP/x.y`; header values are trimmed and folded lines
// joined with a space; the methods QtHttpServer knows keep their name, any other is "UNKNOWN".
//
// Thread: any, one at a time (the connection's thread in practice). Exposed for unit tests.
#include "http/HttpTypes.h"

#include <QByteArray>
#include <QByteArrayView>
#include <deque>
#include <optional>

namespace sy::http {

struct FramingLimits {
    qsizetype maxHeaderBytes = 64 * 1024;
    qint64 maxBodyBytes = 16 * 1024 * 1024;
};

// One complete request, as read from the connection.
struct FramedRequest {
    bool http10 = false;     // the request line says HTTP/1.0
    bool keepAlive = false;  // a `Connection: keep-alive` token was sent
    bool upgrade = false;    // a `Connection: upgrade` token was sent
    QByteArray method;       // "GET", "POST", ... or "UNKNOWN" for a method QtHttpServer 6.4 does not know
    QByteArray target;       // the request target as sent, e.g. "/v1/models?limit=2"
    HeaderList headers;      // names lower-cased, values trimmed, in arrival order
    QByteArray body;         // decoded (chunked framing removed)
};

class RequestFramer {
public:
    // BadFraming: conflicting Content-Length / Transfer-Encoding headers (request smuggling) -> 400.
    // Malformed: a request line QtHttpServer 6.4 refuses too (it closes the connection unanswered).
    enum class Verdict { Ok, HeaderTooLarge, BodyTooLarge, BadFraming, ExpectContinue, Malformed };
    explicit RequestFramer(FramingLimits limits) : m_limits(limits) {}

    // Feeds the next bytes of the connection. Returns the first non-Ok verdict met (a limit,
    // a malformed request line, or a request that waits for 100 Continue), else Ok. After a
    // verdict other than Ok and ExpectContinue the rest of `bytes` is not read.
    Verdict feed(QByteArrayView bytes);
    // Path of the request being framed ("" until its request line is complete).
    QByteArray currentPath() const { return m_path; }
    // Requests completed by the last feed() before the one a refusal is about: those must still
    // be answered first.
    int completedInLastFeed() const { return m_completedInFeed; }
    // The oldest complete request not yet taken, in order.
    std::optional<FramedRequest> takeFramed();

private:
    enum class State { Headers, Body, ChunkSize, ChunkData, ChunkDataEnd, Trailers };
    Verdict headersComplete();
    void requestComplete();
    qsizetype feedChunked(QByteArrayView bytes, Verdict &verdict);

    FramingLimits m_limits;
    State m_state = State::Headers;
    QByteArray m_buffer;       // header block or chunk-size/trailer line being collected
    QByteArray m_path;
    qint64 m_remaining = 0;    // body or chunk bytes still expected
    qint64 m_bodySeen = 0;     // decoded body bytes of the current chunked request
    int m_completedInFeed = 0;
    FramedRequest m_current;   // the request whose body is being read
    std::deque<FramedRequest> m_framed;  // complete, not yet taken
};

} // namespace sy::http
