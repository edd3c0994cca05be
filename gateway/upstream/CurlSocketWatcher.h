#pragma once
// CurlSocketWatcher: turns libcurl's socket interest (CURLMOPT_SOCKETFUNCTION) into
// QSocketNotifiers on the owning thread, and reports readiness back as curl event bits
// (CURL_CSELECT_IN / CURL_CSELECT_OUT) for curl_multi_socket_action. Internal to the upstream
// layer.
//
// Notifier pairs are pooled and never deleted while the client lives: curl often drops a socket
// from inside the activation of that very socket's notifier, and recycling (disable now, reuse
// with setSocket later) keeps that safe without deleteLater events. The pool grows to the peak
// number of sockets open at once.
//
// Parked sockets. When curl puts a connection back in its cache (CURL_POLL_REMOVE) the next
// request usually takes it moments later; disabling its read notifier and enabling it again
// would cost two epoll_ctl calls per request. So a socket curl drops while it was watched for
// reading stays watched, parked: the next CURL_POLL_IN for it takes the same pair with nothing
// to change. A parked socket that turns readable (the provider closed the idle connection, or
// sent something unasked) is dropped from the watch without telling curl, which does not watch
// it (its liveness check finds the connection dead when it next looks). Every handle gets
// watchHandle()'s close-socket callback, which drops a parked socket before curl closes it, so a
// notifier never outlives its descriptor.
//
// With `background`, every socket curl reports goes to the background lane of the thread's
// EpollEventDispatcher while curl watches it or it is parked (see EpollEventDispatcher.h).
//
// Thread: the owning client's thread only.
#include <QObject>
#include <QSocketNotifier>
#include <curl/curl.h>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

namespace sy::upstream::detail {

class CurlSocketWatcher {
public:
    using Activity = std::function<void(curl_socket_t socket, int curlEvents)>;

    // Installs itself as `multi`'s socket callback. `context` parents the notifiers; `onActivity`
    // runs from the event loop whenever a watched socket is ready.
    CurlSocketWatcher(CURLM *multi, QObject *context, Activity onActivity, bool background = false);
    // Destroy only after curl_multi_cleanup(): curl may report and close sockets until then.
    ~CurlSocketWatcher();

    CurlSocketWatcher(const CurlSocketWatcher &) = delete;
    CurlSocketWatcher &operator=(const CurlSocketWatcher &) = delete;

    // Gives `easy` the close-socket callback; every handle added to the multi must have it (the
    // connections it opens close through it, whichever handle closes them).
    void watchHandle(CURL *easy);
    // Sockets parked now (tests and diagnostics).
    int parkedSockets() const { return int(parked_.size()); }

private:
    struct Watch;

    static int onCurlSocket(CURL *easy, curl_socket_t socket, int what, void *self, void *watch);
    static int onCloseSocket(void *self, curl_socket_t socket);
    Watch *takeWatch();
    void release(Watch *watch);
    void unpark(curl_socket_t socket);

    CURLM *multi_;
    QObject *context_;
    Activity onActivity_;
    bool background_;
    std::vector<std::unique_ptr<Watch>> watches_;
    std::vector<Watch *> free_;
    std::unordered_map<curl_socket_t, Watch *> parked_;
};

} // namespace sy::upstream::detail
