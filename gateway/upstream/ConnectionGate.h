#pragma once
// ConnectionGate: keeps a burst of requests to an HTTP/2 origin from opening a connection each.
//
// libcurl 7.88 (Debian 12) puts a new transfer on a multiplexed connection only once that
// connection is set up: one still in its TLS handshake is passed over (curl marks a connection
// "to be closed" until its protocol says otherwise), and CURLOPT_PIPEWAIT waits only while curl
// does not yet know that the origin multiplexes. So when every open connection is at its stream
// limit, N requests that arrive together open N connections, each with its TLS handshake and
// state (docs/benchmarks/connections.md: 200 at once beside a full connection opened 169, where
// 7 would do).
//
// The gate holds such requests back itself. Per https:// origin it counts the free stream slots
// on the connections its transfers are on (`streamsPerConnection` each, less the transfers on
// it), the transfers added to curl and not yet on a connection, and the openers: transfers added
// when no slot was free, each expected to open a connection. A request that finds no free slot
// waits while the openers' connections will have room for it, and is an opener itself otherwise;
// when a transfer's request goes out, the waiting ones are let go to the room there is. An origin
// that answers over HTTP/1.x (its status line says so) holds nobody from then on, until it
// answers over HTTP/2 again: a burst to it waits for one handshake, once. Plain http://
// (HTTP/1.1 here) is never held. An opener that fails to connect lets every waiting transfer go
// at once and the origin holds nobody until its next answer over HTTP/2, so that no request
// waits out one connect timeout after another.
//
// Thread: the owning CurlUpstreamClient's. requestSent() and responseVersion() run inside curl
// callbacks: released transfers are collected for takeReleased(), never added from here.
#include "upstream/UpstreamClient.h"

#include <QByteArray>
#include <QHash>

#include <curl/curl.h>

#include <deque>
#include <unordered_map>
#include <vector>

namespace sy::upstream::detail {

class CurlTransfer;

// A transfer's place in the gate (kept in the transfer).
struct GateSlot {
    enum class State : quint8 {
        None,    // not gated (the gate does not know it, or it left)
        Held,    // waiting in its origin's queue, not in curl
        Added,   // in curl, expected to take a free slot
        Opener,  // in curl, expected to open a connection
        Sent,    // its request went out on `socket`
    };
    int origin = -1;
    State state = State::None;
    curl_socket_t socket = CURL_SOCKET_BAD;
};

class ConnectionGate {
public:
    explicit ConnectionGate(long streamsPerConnection);

    // A new transfer for `request`: true when it goes to curl now, false when it waits (until
    // takeReleased() returns it, or leave()).
    bool admit(CurlTransfer *transfer, const UpstreamRequest &request);
    // curl is writing the transfer's request on `socket` (curl's PREREQ callback).
    void requestSent(CurlTransfer *transfer, curl_socket_t socket);
    // The transfer's response status line: over HTTP/2 (`multiplexed`) or not.
    void responseVersion(CurlTransfer *transfer, bool multiplexed);
    // The transfer failed before its request went out (no connection).
    void connectFailed(CurlTransfer *transfer);
    // The transfer leaves (finished, failed, cancelled): its slot is free again; a waiting one
    // leaves the queue.
    void leave(CurlTransfer *transfer);
    // The waiting transfers let go since the last call, in arrival order: add them to curl.
    std::vector<CurlTransfer *> takeReleased();
    bool hasReleased() const { return !m_released.empty(); }

    // Transfers waiting, all origins (tests).
    int heldCount() const;

private:
    struct Origin {
        // Its last answer came over HTTP/1.x, or a connection to it failed: nobody waits. Until
        // it answers, an https:// origin is taken to multiplex (as real providers do).
        bool single = false;
        long room = 0;             // free stream slots on the connections below
        int added = 0;             // Added transfers
        int openers = 0;           // Opener transfers
        std::unordered_map<curl_socket_t, int> streams;  // per connection: our transfers on it
        std::deque<CurlTransfer *> held;
    };
    Origin *originOf(const GateSlot &slot);
    void admitNow(Origin &origin, GateSlot &slot, GateSlot::State state);
    void release(Origin &origin);

    const long m_streamsPerConnection;
    QHash<QByteArray, int> m_index;
    std::vector<Origin> m_origins;
    std::vector<CurlTransfer *> m_released;
};

} // namespace sy::upstream::detail
