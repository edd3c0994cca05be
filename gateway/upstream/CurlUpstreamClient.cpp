#include "upstream/CurlUpstreamClient.h"

#include "upstream/CurlErrors.h"
#include "upstream/CurlSocketWatcher.h"
#include "upstream/CurlTransfer.h"
#include "upstream/TransferDeadlines.h"

#include <QVarLengthArray>
#include <algorithm>
#include <limits>
#include <new>
#include <stdexcept>

namespace sy::upstream {

using detail::CurlTransfer;
using detail::Phase;

namespace {

// Once per process, from whichever thread creates the first client. curl_global_cleanup is
// deliberately never called: a client on another thread may outlive any point we could pick.
void ensureCurlGlobalInit()
{
    static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    if (!initialised)
        throw std::runtime_error("curl_global_init failed");
}

int timerInterval(qint64 ms)
{
    return int(std::clamp<qint64>(ms, 0, std::numeric_limits<int>::max()));
}

} // namespace

CurlUpstreamClient::CurlUpstreamClient(QObject *parent)
    : CurlUpstreamClient(CurlClientOptions{}, parent)
{
}

CurlUpstreamClient::CurlUpstreamClient(CurlClientOptions options, QObject *parent)
    : QObject(parent), options_(options), curlTimer_(this)
{
    ensureCurlGlobalInit();
    multi_ = curl_multi_init();
    if (!multi_)
        throw std::bad_alloc();
    sockets_ = std::make_unique<detail::CurlSocketWatcher>(
        multi_, this, [this](curl_socket_t socket, int events) {
            // Inside a handler's nested event loop: the notifier is level-triggered and fires
            // again once the outer curl call has returned.
            if (curlDepth_ == 0)
                runCurl(socket, events);
        },
        options_.background);
    deadlines_ = std::make_unique<detail::TransferDeadlines>(this, [this] { onDeadlinesDue(); });
    if (options_.gateConnections)
        gate_ = std::make_unique<detail::ConnectionGate>(options_.maxStreamsPerConnection);

    curlTimer_.setSingleShot(true);
    // curl only re-announces its timer when the earliest expiry changes, so a timer that fires
    // early (coarse timers may, by 5%) must not be the only chance to run.
    curlTimer_.setTimerType(Qt::PreciseTimer);
    connect(&curlTimer_, &QTimer::timeout, this, [this] { onCurlTimerDue(); });
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlUpstreamClient::onCurlTimer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    fitConnectionCache();
    curl_multi_setopt(multi_, CURLMOPT_MAX_CONCURRENT_STREAMS, options_.maxStreamsPerConnection);
    // No CURLMOPT_MAX_HOST_CONNECTIONS: concurrent streams to one local inference server must not
    // queue behind each other.
}

CurlUpstreamClient::~CurlUpstreamClient()
{
    std::vector<CurlTransfer *> transfers(active_.cbegin(), active_.cend());
    transfers.insert(transfers.end(), pendingRemovals_.begin(), pendingRemovals_.end());
    active_.clear();
    pendingAdds_.clear();
    pendingRemovals_.clear();
    for (CurlTransfer *transfer : transfers) {
        if (transfer->inMulti)
            curl_multi_remove_handle(multi_, transfer->easy());
        delete transfer;
    }
    pool_.clear();
    // May still report sockets and timers: the watcher and the timer outlive this call.
    curl_multi_cleanup(multi_);
    sockets_.reset();
}

TransferId CurlUpstreamClient::send(UpstreamRequest request, StreamHandler *handler)
{
    const TransferId id = nextId_++;
    CurlTransfer *transfer = takeTransfer();
    const bool now = !gate_ || gate_->admit(transfer, request);
    const bool prepared = transfer->prepare(id, std::move(request), handler);
    active_.insert(id, transfer);
    if (!prepared)
        failLater(id, {UpstreamErrorKind::Other, QStringLiteral("curl refused the request options")});
    else if (now && curlDepth_ > 0)
        pendingAdds_.push_back(transfer);  // curl_multi_add_handle is refused inside callbacks
    else if (now)
        addToMulti(transfer);
    // else it waits in the gate for a connection being opened: addReleased() adds it
    return id;
}

void CurlUpstreamClient::cancel(TransferId id)
{
    const auto it = active_.find(id);
    if (it == active_.end())
        return;
    CurlTransfer *transfer = it.value();
    active_.erase(it);
    // From here on its curl callbacks return abort values and never reach the handler.
    transfer->detachHandler();
    if (curlDepth_ > 0) {
        transfer->removalPending = true;
        pendingRemovals_.push_back(transfer);
    } else {
        retire(transfer);
        addReleased();
    }
}

void CurlUpstreamClient::pause(TransferId id)
{
    CurlTransfer *transfer = active_.value(id);
    if (!transfer)
        return;
    transfer->resumeQueued = false;  // a resume() still on its way is overtaken
    if (transfer->paused || !transfer->inMulti)
        return;
    transfer->paused = true;
    transfer->suspendDeadline();
    curl_easy_pause(transfer->easy(), CURLPAUSE_RECV);
}

void CurlUpstreamClient::resume(TransferId id)
{
    CurlTransfer *transfer = active_.value(id);
    if (!transfer || !transfer->paused || transfer->resumeQueued)
        return;
    transfer->resumeQueued = true;
    QMetaObject::invokeMethod(this, [this, id] { resumeNow(id); }, Qt::QueuedConnection);
}

void CurlUpstreamClient::resumeNow(TransferId id)
{
    CurlTransfer *transfer = active_.value(id);
    if (!transfer || !transfer->resumeQueued)
        return;  // finished, cancelled, or paused again meanwhile
    if (curlDepth_ > 0) {
        // Inside a handler's nested event loop: try again once the outer curl call returned.
        QMetaObject::invokeMethod(this, [this, id] { resumeNow(id); }, Qt::QueuedConnection);
        return;
    }
    transfer->resumeQueued = false;
    transfer->paused = false;
    transfer->restartDeadline();
    // Unpausing hands curl's held-back data to the write callback right here, so this counts
    // as a curl call: the handler's cancel()/send() are deferred as inside any other.
    deadlines_->refresh();
    ++curlDepth_;
    curl_easy_pause(transfer->easy(), CURLPAUSE_CONT);
    --curlDepth_;
    afterCurl();
}

bool CurlUpstreamClient::isPaused(TransferId id) const
{
    const CurlTransfer *transfer = active_.value(id);
    return transfer && transfer->paused;
}

int CurlUpstreamClient::activeTransfers() const
{
    return int(active_.size());
}

int CurlUpstreamClient::parkedSockets() const
{
    return sockets_->parkedSockets();
}

CurlTransfer *CurlUpstreamClient::takeTransfer()
{
    if (pool_.empty()) {
        auto *transfer = new CurlTransfer(deadlines_.get(), gate_.get());
        sockets_->watchHandle(transfer->easy());
        return transfer;
    }
    CurlTransfer *transfer = pool_.back().release();
    pool_.pop_back();
    return transfer;
}

void CurlUpstreamClient::addToMulti(CurlTransfer *transfer)
{
    const CURLMcode code = curl_multi_add_handle(multi_, transfer->easy());
    if (code == CURLM_OK) {
        transfer->inMulti = true;
        ++transfersInMulti_;
        fitConnectionCache();
        return;
    }
    failLater(transfer->id(), {UpstreamErrorKind::Other,
                               QStringLiteral("curl refused the transfer: %1")
                                   .arg(QString::fromUtf8(curl_multi_strerror(code)))});
}

void CurlUpstreamClient::addReleased()
{
    if (!gate_ || !gate_->hasReleased())
        return;
    for (CurlTransfer *transfer : gate_->takeReleased()) {
        if (curlDepth_ > 0)
            pendingAdds_.push_back(transfer);
        else if (transfer->handler())  // else cancelled meanwhile: in pendingRemovals_
            addToMulti(transfer);
    }
}

void CurlUpstreamClient::retire(CurlTransfer *transfer)
{
    if (gate_)
        gate_->leave(transfer);
    if (transfer->inMulti) {
        curl_multi_remove_handle(multi_, transfer->easy());
        --transfersInMulti_;
        fitConnectionCache();
    }
    transfer->release();
    if (pool_.size() < size_t(std::max(0, options_.maxPooledTransfers)))
        pool_.emplace_back(transfer);
    else
        delete transfer;
}

void CurlUpstreamClient::fitConnectionCache()
{
    // curl applies the limit when a transfer gives its connection back, closing the oldest idle
    // connection while the cache holds more. That transfer is still counted here and its
    // connection is no longer in use; every other connection in use carries at least one of the
    // others. So the cache keeps the connections in use plus up to maxIdleConnections idle ones.
    const long others = std::max(0L, transfersInMulti_ - 1);
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, std::max(1L, others + options_.maxIdleConnections));
}

void CurlUpstreamClient::failLater(TransferId id, UpstreamError error)
{
    // The contract forbids calling the handler from inside send().
    QMetaObject::invokeMethod(
        this,
        [this, id, error = std::move(error)] {
            const auto it = active_.find(id);
            if (it == active_.end())
                return;  // cancelled meanwhile
            CurlTransfer *transfer = it.value();
            active_.erase(it);
            StreamHandler *handler = transfer->handler();
            retire(transfer);
            addReleased();
            handler->onError(error);
        },
        Qt::QueuedConnection);
}

void CurlUpstreamClient::runCurl(curl_socket_t socket, int events)
{
    deadlines_->refresh();
    int running = 0;
    ++curlDepth_;
    curl_multi_socket_action(multi_, socket, events, &running);
    --curlDepth_;
    afterCurl();
}

void CurlUpstreamClient::afterCurl()
{
    if (!pendingAdds_.empty()) {
        std::vector<CurlTransfer *> adds;
        adds.swap(pendingAdds_);
        for (CurlTransfer *transfer : adds) {
            if (transfer->handler())  // else cancelled meanwhile: in pendingRemovals_
                addToMulti(transfer);
        }
    }
    if (!pendingRemovals_.empty()) {
        std::vector<CurlTransfer *> removals;
        removals.swap(pendingRemovals_);
        for (CurlTransfer *transfer : removals)
            retire(transfer);
    }
    processMessages();
    addReleased();
}

void CurlUpstreamClient::processMessages()
{
    int queued = 0;
    while (CURLMsg *message = curl_multi_info_read(multi_, &queued)) {
        if (message->msg != CURLMSG_DONE)
            continue;
        const CURLcode result = message->data.result;  // `message` dies with the removal
        finish(CurlTransfer::fromEasy(message->easy_handle), result);
    }
}

void CurlUpstreamClient::finish(CurlTransfer *transfer, CURLcode result)
{
    if (transfer->removalPending)
        return;  // cancelled: afterCurl retires it
    StreamHandler *handler = transfer->handler();
    if (!handler) {
        retire(transfer);
        return;
    }
    active_.remove(transfer->id());
    if (gate_ && result != CURLE_OK && transfer->phase() == Phase::Connecting)
        gate_->connectFailed(transfer);
    if (result == CURLE_OK && transfer->headersDelivered()) {
        retire(transfer);
        handler->onComplete();
        return;
    }
    UpstreamError error;
    if (result == CURLE_OK) {
        error.kind = UpstreamErrorKind::Protocol;
        error.message = QStringLiteral("the response ended without a complete header block");
    } else if (transfer->resendRefused()) {
        error.kind = UpstreamErrorKind::ReusedConnectionLost;
        error.message = QStringLiteral("a reused connection closed after the request was sent; "
                                       "not sent again (the upstream may have received it)");
    } else if (std::optional<QString> shortage = detail::localShortage(result, transfer->socketErrno())) {
        error.kind = UpstreamErrorKind::LocalResources;
        error.message = *shortage;
    } else {
        error.kind = detail::classifyCurlResult(result, transfer->phase() != Phase::Connecting);
        const char *text = transfer->curlErrorText();
        error.message = QStringLiteral("%1 (curl error %2)")
                            .arg(QString::fromUtf8(*text ? text : curl_easy_strerror(result)))
                            .arg(int(result));
    }
    retire(transfer);
    handler->onError(error);
}

int CurlUpstreamClient::onCurlTimer(CURLM *, long timeoutMs, void *self)
{
    auto *client = static_cast<CurlUpstreamClient *>(self);
    QTimer &timer = client->curlTimer_;
    if (timeoutMs < 0) {
        timer.stop();
    } else if (!(timeoutMs == 0 && timer.isActive() && timer.interval() == 0)) {
        // A pending zero timer already covers any expiry up to now: a burst of send() calls
        // costs one restart, not one per transfer.
        timer.start(timerInterval(timeoutMs));
    }
    return 0;
}

void CurlUpstreamClient::onCurlTimerDue()
{
    if (curlDepth_ > 0) {
        curlTimer_.start(1);  // a handler's nested event loop: retry after the outer curl call
        return;
    }
    runCurl(CURL_SOCKET_TIMEOUT, 0);
    if (!curlTimer_.isActive()) {
        long timeoutMs = -1;
        if (curl_multi_timeout(multi_, &timeoutMs) == CURLM_OK && timeoutMs >= 0)
            curlTimer_.start(timerInterval(timeoutMs));
    }
}

void CurlUpstreamClient::onDeadlinesDue()
{
    if (curlDepth_ > 0) {
        deadlines_->arm(deadlines_->nowMs() + 1);
        return;
    }
    const qint64 now = deadlines_->refresh();
    qint64 next = std::numeric_limits<qint64>::max();
    QVarLengthArray<TransferId, 16> expired;
    for (CurlTransfer *transfer : std::as_const(active_)) {
        const qint64 deadline = transfer->deadlineMs();
        if (deadline == 0)
            continue;
        if (deadline <= now)
            expired.append(transfer->id());
        else
            next = std::min(next, deadline);
    }
    if (next != std::numeric_limits<qint64>::max())
        deadlines_->arm(next);

    for (TransferId id : expired) {
        // An earlier handler in this loop may have cancelled it.
        const auto it = active_.find(id);
        if (it == active_.end())
            continue;
        CurlTransfer *transfer = it.value();
        active_.erase(it);
        UpstreamError error;
        if (transfer->phase() == Phase::Receiving) {
            error.kind = UpstreamErrorKind::IdleTimeout;
            error.message = QStringLiteral("no data for %1 ms after the response started")
                                .arg(transfer->idleTimeoutMs());
        } else {
            error.kind = UpstreamErrorKind::FirstByteTimeout;
            error.message = QStringLiteral("no response byte within %1 ms of sending the request")
                                .arg(transfer->firstByteTimeoutMs());
        }
        StreamHandler *handler = transfer->handler();
        retire(transfer);
        handler->onError(error);
    }
}

} // namespace sy::upstream
