#pragma once
// LaneUpstreamClient: the gateway's UpstreamClient — two clients on one thread, one for the
// requests whose answer is relayed to the client as it comes (UpstreamRequest::streamed) and one
// for the rest. The streams' CurlUpstreamClient has its sockets in the background lane of the
// thread's EpollEventDispatcher: relaying thousands of held streams token by token then does not
// hold up a short request behind a long loop pass, and the short request's own connection,
// answer and client are served first (docs/benchmarks/streams-tail.md, 2026-12-04). The two never
// share a connection, so a short request does not wait on an HTTP/2 connection whose every
// readable event runs the transfers of up to 32 streams.
//
// Ids: the lane in the lowest bit, the lane client's own id above it.
// Thread: as CurlUpstreamClient.
#include "upstream/CurlUpstreamClient.h"

#include <memory>

namespace sy::upstream {

class LaneUpstreamClient final : public UpstreamClient {
public:
    // Two CurlUpstreamClients with `options`; the streams' one in the background lane.
    explicit LaneUpstreamClient(CurlClientOptions options = {});
    // Any two clients (tests).
    LaneUpstreamClient(std::unique_ptr<UpstreamClient> shortLane, std::unique_ptr<UpstreamClient> streamLane);
    ~LaneUpstreamClient() override;

    TransferId send(UpstreamRequest request, StreamHandler *handler) override;
    void cancel(TransferId id) override;
    void pause(TransferId id) override;
    void resume(TransferId id) override;
    int activeTransfers() const override;

private:
    static TransferId laneId(TransferId id) { return id >> 1; }
    UpstreamClient &laneOf(TransferId id) const { return *lanes_[id & 1]; }

    std::unique_ptr<UpstreamClient> lanes_[2];  // [0] short requests, [1] streams
};

} // namespace sy::upstream
