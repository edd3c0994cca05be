#include "upstream/LaneUpstreamClient.h"

namespace sy::upstream {

namespace {

std::unique_ptr<UpstreamClient> curlClient(CurlClientOptions options, bool background)
{
    options.background = background;
    return std::make_unique<CurlUpstreamClient>(options);
}

} // namespace

LaneUpstreamClient::LaneUpstreamClient(CurlClientOptions options)
    : LaneUpstreamClient(curlClient(options, false), curlClient(options, true))
{
}

LaneUpstreamClient::LaneUpstreamClient(std::unique_ptr<UpstreamClient> shortLane,
                                       std::unique_ptr<UpstreamClient> streamLane)
    : lanes_{std::move(shortLane), std::move(streamLane)}
{
}

LaneUpstreamClient::~LaneUpstreamClient() = default;

TransferId LaneUpstreamClient::send(UpstreamRequest request, StreamHandler *handler)
{
    const TransferId lane = request.streamed ? 1 : 0;
    return lanes_[lane]->send(std::move(request), handler) << 1 | lane;
}

void LaneUpstreamClient::cancel(TransferId id)
{
    laneOf(id).cancel(laneId(id));
}

void LaneUpstreamClient::pause(TransferId id)
{
    laneOf(id).pause(laneId(id));
}

void LaneUpstreamClient::resume(TransferId id)
{
    laneOf(id).resume(laneId(id));
}

int LaneUpstreamClient::activeTransfers() const
{
    return lanes_[0]->activeTransfers() + lanes_[1]->activeTransfers();
}

} // namespace sy::upstream
