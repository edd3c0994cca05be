#include "upstream/CurlSocketWatcher.h"

#include "core/EpollEventDispatcher.h"

#include <unistd.h>

namespace sy::upstream::detail {

// Parented to the context so they follow it across threads; as members they are destroyed (and
// leave the context's children) before the context itself.
struct CurlSocketWatcher::Watch {
    explicit Watch(QObject *context)
        : read(QSocketNotifier::Read, context), write(QSocketNotifier::Write, context)
    {
        read.setEnabled(false);
        write.setEnabled(false);
    }
    QSocketNotifier read;
    QSocketNotifier write;
    bool parked = false;
};

CurlSocketWatcher::CurlSocketWatcher(CURLM *multi, QObject *context, Activity onActivity, bool background)
    : multi_(multi), context_(context), onActivity_(std::move(onActivity)), background_(background)
{
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlSocketWatcher::onCurlSocket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
}

CurlSocketWatcher::~CurlSocketWatcher() = default;

void CurlSocketWatcher::watchHandle(CURL *easy)
{
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, &CurlSocketWatcher::onCloseSocket);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, this);
}

CurlSocketWatcher::Watch *CurlSocketWatcher::takeWatch()
{
    if (!free_.empty()) {
        Watch *watch = free_.back();
        free_.pop_back();
        return watch;
    }
    auto owned = std::make_unique<Watch>(context_);
    Watch *watch = owned.get();
    // The notifier's own socket is read at activation, so a recycled pair reports the right fd.
    QObject::connect(&watch->read, &QSocketNotifier::activated, context_,
                     [this, watch](QSocketDescriptor socket) {
                         if (watch->parked)
                             unpark(curl_socket_t(qintptr(socket)));
                         else
                             onActivity_(curl_socket_t(qintptr(socket)), CURL_CSELECT_IN);
                     });
    QObject::connect(&watch->write, &QSocketNotifier::activated, context_,
                     [this](QSocketDescriptor socket) {
                         onActivity_(curl_socket_t(qintptr(socket)), CURL_CSELECT_OUT);
                     });
    watches_.push_back(std::move(owned));
    return watch;
}

void CurlSocketWatcher::release(Watch *watch)
{
    watch->parked = false;
    watch->read.setEnabled(false);
    watch->write.setEnabled(false);
    free_.push_back(watch);
}

void CurlSocketWatcher::unpark(curl_socket_t socket)
{
    const auto it = parked_.find(socket);
    if (it == parked_.end())
        return;
    Watch *watch = it->second;
    parked_.erase(it);
    release(watch);
    if (background_)
        setSocketBackground(qintptr(socket), false);
}

int CurlSocketWatcher::onCloseSocket(void *self, curl_socket_t socket)
{
    // Before the descriptor goes: its number may be reused at once.
    static_cast<CurlSocketWatcher *>(self)->unpark(socket);
    return ::close(socket);
}

int CurlSocketWatcher::onCurlSocket(CURL *, curl_socket_t socket, int what, void *self,
                                    void *watchPtr)
{
    auto *watcher = static_cast<CurlSocketWatcher *>(self);
    auto *watch = static_cast<Watch *>(watchPtr);
    if (what == CURL_POLL_REMOVE) {
        // curl forgets the assigned pointer along with the socket.
        if (watch && watch->read.isEnabled()) {
            // Parked in the lane it is in: leaving the background set and coming back would
            // cost the epoll_ctl calls parking saves.
            watch->write.setEnabled(false);
            watch->parked = true;
            watcher->parked_.emplace(socket, watch);
            return 0;
        }
        if (watch)
            watcher->release(watch);
        if (watcher->background_)
            setSocketBackground(qintptr(socket), false);
        return 0;
    }
    if (!watch) {
        if (watcher->background_)
            setSocketBackground(qintptr(socket), true);
        const auto parked = watcher->parked_.find(socket);
        if (parked != watcher->parked_.end()) {
            watch = parked->second;
            watch->parked = false;
            watcher->parked_.erase(parked);
        } else {
            watch = watcher->takeWatch();
            watch->read.setSocket(qintptr(socket));
            watch->write.setSocket(qintptr(socket));
        }
        curl_multi_assign(watcher->multi_, socket, watch);
    }
    watch->read.setEnabled(what == CURL_POLL_IN || what == CURL_POLL_INOUT);
    watch->write.setEnabled(what == CURL_POLL_OUT || what == CURL_POLL_INOUT);
    return 0;
}

} // namespace sy::upstream::detail
