#pragma once
// LoopbackHttpServer: a scriptable HTTP/1.1 server on 127.0.0.1 (port 0) for the upstream tests.
// It reads each request (head plus Content-Length body), records it, and answers with the steps
// of the current script — raw writes after delays, a graceful close or a reset — so a test can
// produce any wire behaviour: immediate answers, paced streams, silence, truncation. Connections
// stay open (keep-alive) unless a step closes them. Thread: the test's thread.
#include "http/HttpTypes.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QSslConfiguration>
#include <QTcpServer>
#include <QTcpSocket>
#include <chrono>
#include <functional>
#include <memory>

namespace sy::upstream::test {

struct ReceivedRequest {
    QByteArray method;
    QByteArray target;          // e.g. "/v1/chat"
    http::HeaderList headers;   // names lower-cased
    QByteArray body;
    int connection = 0;         // index of the accepted connection it came on
};

struct Step {
    enum class Kind { Write, Close, Reset };
    Kind kind = Kind::Write;
    std::chrono::milliseconds delay{0};  // after the previous step
    QByteArray bytes;

    static Step write(QByteArray bytes, std::chrono::milliseconds delay = {});
    static Step close(std::chrono::milliseconds delay = {});
    static Step reset(std::chrono::milliseconds delay = {});
};

class LoopbackHttpServer : public QObject {
public:
    using Script = std::function<QList<Step>(const ReceivedRequest &)>;

    // Plain HTTP; with `tls`, HTTPS through QSslServer using that configuration.
    explicit LoopbackHttpServer(const QSslConfiguration *tls = nullptr);
    ~LoopbackHttpServer() override;

    QByteArray url(QByteArrayView path = "/") const;
    quint16 port() const { return server_->serverPort(); }
    // Applies to requests received from now on. The default answers 200 "ok".
    void setScript(Script script) { script_ = std::move(script); }

    int acceptedConnections() const { return int(sockets_.size()); }
    int openConnections() const { return open_; }
    int peakOpenConnections() const { return peakOpen_; }
    // Connections the client closed (or reset) itself.
    int connectionsClosedByPeer() const { return closedByPeer_; }
    const QList<ReceivedRequest> &requests() const { return requests_; }
    qint64 bytesReceived() const { return bytesReceived_; }

    // For tests that pace a stream by hand. Returns false if that connection is gone.
    bool write(int connection, const QByteArray &bytes);

    // Wire helpers.
    static QByteArray response(int status, const QByteArray &body,
                               const http::HeaderList &headers = {});
    static QByteArray chunkedHead(int status, const http::HeaderList &headers = {});
    static QByteArray chunk(const QByteArray &bytes);
    static QByteArray lastChunk() { return "0\r\n\r\n"; }

private:
    struct Connection {
        QPointer<QTcpSocket> socket;
        QByteArray buffer;
        bool closedByUs = false;
    };

    void onNewConnection();
    void onReadyRead(int index);
    bool takeRequest(Connection &connection, int index, ReceivedRequest &out);
    void runSteps(int index, QList<Step> steps);

    std::unique_ptr<QTcpServer> server_;
    bool tls_ = false;
    int open_ = 0;
    QList<Connection> sockets_;
    QList<ReceivedRequest> requests_;
    Script script_;
    int peakOpen_ = 0;
    int closedByPeer_ = 0;
    qint64 bytesReceived_ = 0;
};

} // namespace sy::upstream::test
