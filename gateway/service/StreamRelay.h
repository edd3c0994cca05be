#pragma once
// StreamRelay: the client side of a streamed answer (SPEC §5). Until the first event with content
// arrives the client has seen nothing, so the relay holds what the attempt produced and a failed
// attempt's bytes are simply dropped (an invisible switch). commit() sends the 200 with the trace
// headers and what was held; from then on bytes go straight through, and the stream ends either
// cleanly (end) or with the client format's interrupted-stream signal (interrupt).
//
// Thread: the gateway thread.
#include "http/ResponseSink.h"

#include <memory>
#include <vector>

namespace sy::service {

class StreamRelay {
public:
    explicit StreamRelay(std::shared_ptr<http::ResponseSink> sink) : m_sink(std::move(sink)) {}

    bool committed() const { return m_committed; }
    // A new attempt: what the previous one held never reaches the client.
    void resetHeld() { m_held.clear(); }
    // Bytes of the current attempt: held before commit, written after it.
    void relay(QByteArray bytes);
    // Sends the status line and headers, then everything held. Once.
    void commit(const http::HeaderList &headers);
    // The clean end: `tail` (the format's closing bytes), then the end of the body.
    void end(const QByteArray &tail);
    // The broken end after commit: `signal` (the format's error event), then the end of the body.
    void interrupt(const QByteArray &signal);

private:
    std::shared_ptr<http::ResponseSink> m_sink;
    std::vector<QByteArray> m_held;
    bool m_committed = false;
};

} // namespace sy::service
