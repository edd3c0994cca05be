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
// With `background`, every socket curl reports goes to the background lane of the thread's
// EpollEventDispatcher while curl watches it (see EpollEventDispatcher.h).
//
// Thread: the owning client's thread only.
#include <QObject>
#include <QSocketNotifier>
#include <curl/curl.h>
#include <functional>
#include <memory>
#include <vector>

namespace sy::upstream::detail {

class CurlSocketWatcher {
public:
    using Activity = std::function<void(curl_socket_t socket, int curlEvents)>;

    // Installs itself as `multi`'s socket callback. `context` parents the notifiers; `onActivity`
    // runs from the event loop whenever a watched socket is ready.
    CurlSocketWatcher(CURLM *multi, QObject *context, Activity onActivity, bool background = false);
    // Destroy only after curl_multi_cleanup(): curl may report sockets until then.
    ~CurlSocketWatcher();

    CurlSocketWatcher(const CurlSocketWatcher &) = delete;
    CurlSocketWatcher &operator=(const CurlSocketWatcher &) = delete;

private:
    struct Watch;

    static int onCurlSocket(CURL *easy, curl_socket_t socket, int what, void *self, void *watch);
    Watch *takeWatch();

    CURLM *multi_;
    QObject *context_;
    Activity onActivity_;
    bool background_;
    std::vector<std::unique_ptr<Watch>> watches_;
    std::vector<Watch *> free_;
};

} // namespace sy::upstream::detail
