#include "upstream/ConnectionGate.h"

#include "upstream/CurlTransfer.h"

#include <algorithm>

namespace sy::upstream::detail {

namespace {

// The origin as far as curl shares connections: scheme, host and port, and the settings that
// keep curl from putting two transfers on one connection (proxy, CA file, verification).
// Empty for a URL that is not https:// (no HTTP/2 without TLS here: CURL_HTTP_VERSION_2TLS).
QByteArray originKey(const UpstreamRequest &request)
{
    static constexpr QByteArrayView kScheme = "https://";
    const QByteArrayView url(request.url);
    if (url.size() <= kScheme.size() || qstrnicmp(url.data(), kScheme.data(), kScheme.size()) != 0)
        return {};
    QByteArrayView authority = url.sliced(kScheme.size());
    for (qsizetype i = 0; i < authority.size(); ++i) {
        if (authority[i] == '/' || authority[i] == '?' || authority[i] == '#') {
            authority = authority.first(i);
            break;
        }
    }
    QByteArray key;
    key.reserve(authority.size() + request.proxy.size() + request.caFile.size() + 4);
    key.append(authority).append('\n').append(request.proxy).append('\n').append(request.caFile);
    key.append(request.verifyTls ? "\n1" : "\n0");
    return key;
}

} // namespace

ConnectionGate::ConnectionGate(long streamsPerConnection) : m_streamsPerConnection(std::max(1L, streamsPerConnection))
{
}

ConnectionGate::Origin *ConnectionGate::originOf(const GateSlot &slot)
{
    return slot.origin >= 0 ? &m_origins[size_t(slot.origin)] : nullptr;
}

bool ConnectionGate::admit(CurlTransfer *transfer, const UpstreamRequest &request)
{
    GateSlot &slot = transfer->gate;
    slot = GateSlot{};
    const QByteArray key = originKey(request);
    if (key.isEmpty())
        return true;
    auto found = m_index.constFind(key);
    if (found == m_index.cend()) {
        found = m_index.insert(key, int(m_origins.size()));
        m_origins.emplace_back();
    }
    slot.origin = found.value();
    Origin &origin = m_origins[size_t(slot.origin)];
    if (origin.single || origin.room - origin.added > 0) {
        admitNow(origin, slot, GateSlot::State::Added);
        return true;
    }
    // No free slot: wait for a connection being opened while those will have room, else open one.
    if (origin.held.size() < size_t(origin.openers) * size_t(m_streamsPerConnection - 1)) {
        slot.state = GateSlot::State::Held;
        origin.held.push_back(transfer);
        return false;
    }
    admitNow(origin, slot, GateSlot::State::Opener);
    return true;
}

void ConnectionGate::admitNow(Origin &origin, GateSlot &slot, GateSlot::State state)
{
    slot.state = state;
    if (state == GateSlot::State::Opener)
        ++origin.openers;
    else
        ++origin.added;
}

void ConnectionGate::requestSent(CurlTransfer *transfer, curl_socket_t socket)
{
    GateSlot &slot = transfer->gate;
    Origin *origin = originOf(slot);
    if (!origin || (slot.state != GateSlot::State::Added && slot.state != GateSlot::State::Opener))
        return;
    if (slot.state == GateSlot::State::Opener)
        --origin->openers;
    else
        --origin->added;
    slot.state = GateSlot::State::Sent;
    slot.socket = socket;
    int &streams = origin->streams[socket];
    if (streams == 0)
        origin->room += m_streamsPerConnection;
    ++streams;
    --origin->room;
    release(*origin);
}

void ConnectionGate::responseVersion(CurlTransfer *transfer, bool multiplexed)
{
    Origin *origin = originOf(transfer->gate);
    if (!origin || origin->single == !multiplexed)
        return;
    origin->single = !multiplexed;
    release(*origin);
}

void ConnectionGate::connectFailed(CurlTransfer *transfer)
{
    Origin *origin = originOf(transfer->gate);
    if (!origin || origin->single)
        return;
    // Taken to multiplex again at its next answer over HTTP/2; until then nobody waits.
    origin->single = true;
    release(*origin);
}

void ConnectionGate::leave(CurlTransfer *transfer)
{
    GateSlot &slot = transfer->gate;
    Origin *origin = originOf(slot);
    const GateSlot left = std::exchange(slot, GateSlot{});
    if (!origin)
        return;
    if (!m_released.empty())  // let go, and gone before it reached curl
        m_released.erase(std::remove(m_released.begin(), m_released.end(), transfer), m_released.end());
    switch (left.state) {
    case GateSlot::State::Held:
        origin->held.erase(std::find(origin->held.begin(), origin->held.end(), transfer));
        return;  // took nothing
    case GateSlot::State::Added:
        --origin->added;
        break;
    case GateSlot::State::Opener:
        --origin->openers;
        break;
    case GateSlot::State::Sent: {
        const auto it = origin->streams.find(left.socket);
        if (it != origin->streams.end()) {
            ++origin->room;
            if (--it->second == 0) {
                // An idle connection: curl may close it any time, so it no longer counts.
                origin->room -= m_streamsPerConnection;
                origin->streams.erase(it);
            }
        }
        break;
    }
    case GateSlot::State::None:
        return;
    }
    release(*origin);
}

void ConnectionGate::release(Origin &origin)
{
    while (!origin.held.empty()) {
        GateSlot::State state;
        if (origin.single || origin.room - origin.added > 0)
            state = GateSlot::State::Added;
        else if (origin.held.size() > size_t(origin.openers) * size_t(m_streamsPerConnection - 1))
            state = GateSlot::State::Opener;  // more wait than the connections being opened take
        else
            return;
        CurlTransfer *transfer = origin.held.front();
        origin.held.pop_front();
        admitNow(origin, transfer->gate, state);
        m_released.push_back(transfer);
    }
}

std::vector<CurlTransfer *> ConnectionGate::takeReleased()
{
    std::vector<CurlTransfer *> released;
    released.swap(m_released);
    return released;
}

int ConnectionGate::heldCount() const
{
    size_t held = 0;
    for (const Origin &origin : m_origins)
        held += origin.held.size();
    return int(held);
}

} // namespace sy::upstream::detail
