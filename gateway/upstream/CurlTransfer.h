#pragma once
// CurlTransfer: one request's state around a reusable curl easy handle. Owned by
// CurlUpstreamClient, which pools them; internal to the upstream layer.
//
// The curl callbacks installed here run inside curl_multi_socket_action on the client's thread.
// They call the handler directly (streaming, no buffering) and, when the handler has cancelled
// the transfer meanwhile (`handler` became null), return curl's abort value so the client can
// remove the handle once curl has returned — curl forbids removing it from inside a callback.
#include "upstream/ConnectionGate.h"
#include "upstream/UpstreamClient.h"

#include <curl/curl.h>
#include <optional>
#include <string>

namespace sy::upstream::detail {

class TransferDeadlines;

enum class Phase : quint8 {
    Connecting,         // DNS, TCP, TLS: curl's connect timeout applies
    Sending,            // large body still being written: a stall counts against first byte
    AwaitingFirstByte,  // request sent: first-byte deadline
    Receiving,          // response started: idle deadline
};

class CurlTransfer {
public:
    // Creates the easy handle and sets the options every request shares. `deadlines` and `gate`
    // (null: none) outlive it.
    explicit CurlTransfer(TransferDeadlines *deadlines, ConnectionGate *gate = nullptr);
    ~CurlTransfer();

    CurlTransfer(const CurlTransfer &) = delete;
    CurlTransfer &operator=(const CurlTransfer &) = delete;

    // Sets the request's options on the handle. Returns false when curl refuses one (out of
    // memory); the handle is then still safe to release().
    bool prepare(TransferId id, UpstreamRequest &&request, StreamHandler *handler);
    // Drops the request's resources; the handle (and the multi's connections) stay for reuse, and so
    // do its parsed URL and header list, for a next request that has the same.
    void release();

    static CurlTransfer *fromEasy(CURL *easy);

    CURL *easy() const { return easy_; }
    TransferId id() const { return id_; }
    StreamHandler *handler() const { return handler_; }
    void detachHandler() { handler_ = nullptr; }
    bool headersDelivered() const { return headersDelivered_; }
    Phase phase() const { return phase_; }
    qint64 deadlineMs() const { return deadlineMs_; }
    qint64 firstByteTimeoutMs() const { return firstByteTimeoutMs_; }
    qint64 idleTimeoutMs() const { return idleTimeoutMs_; }
    const char *curlErrorText() const { return errorBuffer_; }
    // errno of the last socket() of this transfer that failed; 0 when none did.
    int socketErrno() const { return socketErrno_; }
    // True when curl tried to send the request a second time and was stopped (see onRequestReady).
    bool resendRefused() const { return resendRefused_; }

    // While paused no deadline runs; resuming restarts the current phase's window from now.
    void suspendDeadline() { deadlineMs_ = 0; }
    void restartDeadline();

    // Client bookkeeping: in the multi handle; removal deferred until curl returns.
    bool inMulti = false;
    GateSlot gate;  // its place in the client's ConnectionGate
    bool removalPending = false;
    bool paused = false;          // curl has the receive side paused
    bool resumeQueued = false;    // a resumeNow() call is on its way

private:
    static size_t onHeaderLine(char *data, size_t size, size_t count, void *self);
    static size_t onBody(char *data, size_t size, size_t count, void *self);
    static int onRequestReady(void *self, char *, char *, int, int);
    static int onProgress(void *self, curl_off_t, curl_off_t, curl_off_t, curl_off_t uploaded);
    static curl_socket_t onOpenSocket(void *self, curlsocktype purpose, curl_sockaddr *address);

    bool setRequestHeaders(const HeaderList &headers, bool hasBody);
    bool appendRequestHeaders(const HeaderList &headers, bool hasBody);
    bool setUrl(const QByteArray &url);
    void parseHeaderLine(QByteArrayView line);
    void noteReceived();

    CURL *easy_ = nullptr;
    // The last request's URL, parsed once (CURLOPT_CURLU): curl parses a CURLOPT_URL string and
    // rebuilds it on every transfer; a pooled handle mostly sends to the same URL again.
    CURLU *url_ = nullptr;
    QByteArray urlText_;               // what url_ holds; empty when it holds nothing usable
    QByteArray defaultCaInfo_;
    QByteArray defaultCaPath_;
    TransferDeadlines *deadlines_;
    ConnectionGate *connectionGate_;
    // Kept across uses of the handle with the headers it was built from: the next request of the
    // same channel and credential sends the same list.
    curl_slist *requestHeaders_ = nullptr;
    HeaderList requestHeadersFrom_;
    bool requestHeadersHaveBody_ = false;
    // The CA file and proxy last set on the handle (curl copies each string it is given); unset
    // until the first request.
    std::optional<QByteArray> caFileSet_;
    std::optional<QByteArray> proxySet_;
    std::string scratch_;              // header line being built, reused across requests
    QByteArray body_;                  // CURLOPT_POSTFIELDS points into it
    HeaderList responseHeaders_;
    StreamHandler *handler_ = nullptr; // null once cancelled or finished
    TransferId id_ = 0;
    qint64 deadlineMs_ = 0;            // steady ms; 0 = none
    qint64 firstByteTimeoutMs_ = 0;    // 0 = none
    qint64 idleTimeoutMs_ = 0;         // 0 = none
    curl_off_t uploadedBytes_ = 0;
    int status_ = 0;
    int socketErrno_ = 0;
    Phase phase_ = Phase::Connecting;
    bool trackUpload_ = false;
    bool headersDelivered_ = false;
    bool requestSent_ = false;         // the request went out once on some connection
    bool resendRefused_ = false;
    char errorBuffer_[CURL_ERROR_SIZE];
};

} // namespace sy::upstream::detail
