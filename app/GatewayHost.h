#pragma once
// GatewayHost: runs the gateway (and, on the demo workspace, the in-process simulator) on its own
// worker thread, and hands the UI immutable snapshots of its state at a steady 4 Hz through
// queued signals. The UI never calls into gateway objects.
//
// Thread: construct, start() and read properties on the UI thread; everything gateway-side lives
// on the worker thread.
#include <QObject>
#include <QString>
#include <QThread>

namespace sy::app {

struct GatewaySnapshot {
    bool listening = false;
    QString url;            // e.g. http://127.0.0.1:8080
    QString demoKey;        // empty unless on the demo workspace
    QString error;          // why the gateway could not start
    quint64 requests = 0;
    quint64 succeeded = 0;
    quint64 failed = 0;
    int inFlight = 0;
};

class GatewayWorker;

class GatewayHost : public QObject {
    Q_OBJECT
    Q_PROPERTY(bool listening READ listening NOTIFY snapshotChanged)
    Q_PROPERTY(QString url READ url NOTIFY snapshotChanged)
    Q_PROPERTY(QString demoKey READ demoKey NOTIFY snapshotChanged)
    Q_PROPERTY(QString error READ error NOTIFY snapshotChanged)
    Q_PROPERTY(double requests READ requests NOTIFY snapshotChanged)
    Q_PROPERTY(double succeeded READ succeeded NOTIFY snapshotChanged)
    Q_PROPERTY(double failed READ failed NOTIFY snapshotChanged)
    Q_PROPERTY(int inFlight READ inFlight NOTIFY snapshotChanged)
public:
    explicit GatewayHost(QObject *parent = nullptr);
    ~GatewayHost() override;

    // Starts the worker thread and the gateway on it: the demo workspace when `configPath` is
    // empty, else that configuration file. `port` 0 = the configured/default port.
    void start(const QString &configPath, quint16 port);

    bool listening() const { return m_snapshot.listening; }
    QString url() const { return m_snapshot.url; }
    QString demoKey() const { return m_snapshot.demoKey; }
    QString error() const { return m_snapshot.error; }
    double requests() const { return double(m_snapshot.requests); }
    double succeeded() const { return double(m_snapshot.succeeded); }
    double failed() const { return double(m_snapshot.failed); }
    int inFlight() const { return m_snapshot.inFlight; }

signals:
    void snapshotChanged();

private:
    void applySnapshot(const sy::app::GatewaySnapshot &snapshot);

    QThread m_thread;
    GatewayWorker *m_worker = nullptr;
    GatewaySnapshot m_snapshot;
};

} // namespace sy::app

Q_DECLARE_METATYPE(sy::app::GatewaySnapshot)
