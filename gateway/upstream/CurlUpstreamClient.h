#pragma once
// CurlUpstreamClient: the production UpstreamClient — libcurl's multi interface driven by the Qt
// event loop of the thread that owns it. curl's sockets are watched with QSocketNotifiers and its
// timer is a single-shot QTimer; all progress happens in curl_multi_socket_action, so nothing
// polls while no transfer is active.
//
// Thread contract: create, use and destroy the client on one thread, and that thread runs a Qt
// event loop; every handler callback arrives on it. Move it (moveToThread) only before the first
// send(). Handlers may call send() and cancel() (of any transfer) from inside their callbacks,
// but must not destroy the client or run a nested event loop there.
//
// Timeouts, per request (a non-positive value disables first-byte and idle; a non-positive
// connect timeout means curl's default of 300 s):
//  - connect: curl's CURLOPT_CONNECTTIMEOUT_MS — name resolution, TCP and TLS handshake → Connect.
//  - first byte: from the moment the request has been sent (handed to the kernel) until the first
//    byte of the response → FirstByteTimeout. A body of up to 64 KiB goes out in one write with
//    the request head, so its window starts when the connection is ready (new or reused); a
//    larger body's window starts when its last byte has been written, and restarts whenever more
//    of it goes out, so a slow upload is not cut but a stalled one times out.
//  - idle: after the first byte, the longest silence between received pieces → IdleTimeout.
//  There is deliberately no overall deadline: a healthy stream may last as long as it streams.
//
// Connections: the multi handle keeps up to `maxIdleConnections` idle connections for reuse
// and sets no per-host limit, so concurrent streams to one local server each get a connection;
// HTTP/2 is negotiated over TLS and multiplexed, at most `maxStreamsPerConnection` streams on a
// connection. Redirects are not followed. TLS verification
// (peer and host name) is on unless the request says otherwise, against the system store or the
// request's own CA file. A request's proxy is used when it names one; otherwise proxies come from
// the usual environment variables (http_proxy, https_proxy, no_proxy), as with the curl tool.
// A request is written at most once: libcurl would re-send it on a fresh connection when a
// reused one dies before any response byte (and on an HTTP/2 refused stream); the client stops
// that second write and ends the transfer with ReusedConnectionLost, so every copy that left
// the gateway is an attempt the caller knows about.
//
// Request headers are sent as given, except Content-Length, Transfer-Encoding and Expect, which
// follow from the body, and any header whose name or value contains CR, LF or NUL (dropped).
#include "upstream/UpstreamClient.h"

#include <QHash>
#include <QObject>
#include <QTimer>
#include <curl/curl.h>
#include <memory>
#include <vector>

namespace sy::upstream {

namespace detail {
class ConnectionGate;
class CurlSocketWatcher;
class CurlTransfer;
class TransferDeadlines;
} // namespace detail

struct CurlClientOptions {
    // Idle connections kept for reuse. curl's cache limit (CURLMOPT_MAXCONNECTS) counts the
    // connections in use as well, so the client sets it to this plus the other transfers in
    // flight, at every transfer it adds or retires: with a fixed 256, ten thousand streams held
    // on ~320 HTTP/2 connections left no room, and every other request's connection was closed
    // when it finished, so the next one connected (and over TLS shook hands) again
    // (docs/benchmarks/streams-tail.md). With 256 concurrent small requests to
    // one loopback server, 64 idle gave about 4k req/s, 512 about 18k. Idle connections over
    // the number are closed one per finished transfer, and any after curl's idle age (118 s).
    long maxIdleConnections = 256;
    // Finished easy handles kept for the next requests (saves curl_easy_init and option setup;
    // each keeps tens of KB of curl buffers, and its last request's parsed URL and header list,
    // reused by a next request with the same).
    int maxPooledTransfers = 256;
    // HTTP/2 streams the gateway puts on one connection (CURLMOPT_MAX_CONCURRENT_STREAMS; curl's
    // default is 100); further concurrent requests to the host open another connection, as they
    // do at the server's own SETTINGS_MAX_CONCURRENT_STREAMS. Why not more: libcurl 7.88 runs
    // every transfer on a connection each time its socket is readable, so an event on a
    // connection of 100 streams cost about 100 transfer runs. At 10,000 held streams the gateway
    // thread used 64-66 % of a core with 100 per connection, 43 % with 32, 38-40 % with 16 and
    // 36 % with 8; RSS 419 MiB, 439, 454-457 and 514 (each connection's TLS state):
    // docs/benchmarks/streams.md, 2026-12-03.
    long maxStreamsPerConnection = 32;
    // Requests to an HTTP/2 origin that find every connection full wait for the connections
    // being opened instead of each opening its own (ConnectionGate.h). false: curl alone decides.
    bool gateConnections = true;
    // The client's sockets go to the background lane of the thread's EpollEventDispatcher: its
    // events wait for the short requests' (the client for held streams; LaneUpstreamClient.h).
    bool background = false;
};

class CurlUpstreamClient final : public QObject, public UpstreamClient {
public:
    explicit CurlUpstreamClient(QObject *parent = nullptr);
    explicit CurlUpstreamClient(CurlClientOptions options, QObject *parent = nullptr);
    // Cancels every active transfer without calling its handler; the server sees the connections
    // close.
    ~CurlUpstreamClient() override;

    // Starts the transfer on the next event-loop pass. The handler must stay alive until its
    // terminal callback or cancel(). Never calls the handler synchronously.
    TransferId send(UpstreamRequest request, StreamHandler *handler) override;
    // See UpstreamClient. Closes the transfer's connection if the response was still running.
    void cancel(TransferId id) override;
    // See UpstreamClient: curl_easy_pause(CURLPAUSE_RECV) at once (allowed inside curl's
    // callbacks); CURLPAUSE_CONT from a queued call outside any curl call, because unpausing
    // delivers data curl held back through the write callback before curl_easy_pause returns.
    void pause(TransferId id) override;
    void resume(TransferId id) override;
    // True while `id` is paused (tests, metrics).
    bool isPaused(TransferId id) const;
    int activeTransfers() const override;
    // Idle connections whose socket stays watched for the next request (CurlSocketWatcher.h;
    // tests and diagnostics).
    int parkedSockets() const;

private:
    detail::CurlTransfer *takeTransfer();
    void addToMulti(detail::CurlTransfer *transfer);
    void addReleased();
    void retire(detail::CurlTransfer *transfer);
    void fitConnectionCache();
    void runCurl(curl_socket_t socket, int events);
    void afterCurl();
    void processMessages();
    void finish(detail::CurlTransfer *transfer, CURLcode result);
    void failLater(TransferId id, UpstreamError error);
    void onCurlTimerDue();
    void resumeNow(TransferId id);
    void onDeadlinesDue();
    static int onCurlTimer(CURLM *multi, long timeoutMs, void *self);

    CurlClientOptions options_;
    CURLM *multi_ = nullptr;
    std::unique_ptr<detail::CurlSocketWatcher> sockets_;
    std::unique_ptr<detail::TransferDeadlines> deadlines_;
    std::unique_ptr<detail::ConnectionGate> gate_;  // null: options_.gateConnections off
    QTimer curlTimer_;
    // Each transfer is owned by exactly one of active_, pendingRemovals_ and pool_; pendingAdds_
    // and the gate's queues only refer to transfers owned by the first two.
    QHash<TransferId, detail::CurlTransfer *> active_;      // not finished, not cancelled
    std::vector<detail::CurlTransfer *> pendingAdds_;       // sent from inside a curl callback
    std::vector<detail::CurlTransfer *> pendingRemovals_;   // cancelled inside a curl callback
    std::vector<std::unique_ptr<detail::CurlTransfer>> pool_;
    TransferId nextId_ = 1;
    int curlDepth_ = 0;  // > 0 while curl_multi_socket_action runs (curl forbids re-entry)
    long transfersInMulti_ = 0;  // added and not yet removed; no more connections are in use
};

} // namespace sy::upstream
