#pragma once
// GatewayWorker: lives on the gateway thread and owns every gateway object — the service, the
// demo workspace (in-process simulator) and the demo traffic generator. It publishes a
// DashboardFrame at a steady 4 Hz and answers the UI's requests (set an outage, run traffic,
// fetch a log page or a trace) by signal.
//
// Thread: construct anywhere, then move to the gateway thread; every slot is invoked there
// through QMetaObject::invokeMethod(..., Qt::QueuedConnection).
#include "DashboardFrame.h"
#include "config/Config.h"
#include "core/Clock.h"
#include "service/RequestLog.h"

#include <QObject>
#include <memory>

class QTimer;

namespace sy::demo { class DemoWorkspace; class TrafficGenerator; }
namespace sy::service { class GatewayService; class StoreSetup; }
namespace sy::boot { class GatewayBoot; }

namespace sy::app {

// How the desktop app starts its gateway (command line options). Copied to the gateway thread.
struct GatewayStartOptions {
    static constexpr int kConfiguredPort = -1;
    QString configPath;        // empty: the demo workspace
    int port = kConfiguredPort; // < 0 the configured (or default) port, 0 any free port, else that port
    QString listenHost;        // empty: the configured host (--listen HOST:PORT sets both)
    QString databasePath;      // empty: the configuration's `database`, else the default file
                               // (switchyard.db, or demo.db for the demo) in the user's data directory
    bool resetDemo = false;    // the demo starts over: its database is deleted first
};

class GatewayWorker : public QObject {
    Q_OBJECT
public:
    GatewayWorker();
    ~GatewayWorker() override;

    // Opens the database, then starts the gateway: the demo workspace when
    // `options.configPath` is empty, else that file. Emits started() or failed() (a message that
    // says what failed, the file or port, and what to do).
    void start(const sy::app::GatewayStartOptions &options);
    // Stops traffic and the gateway and commits what the database has pending (before the
    // thread ends).
    void stop();
    // The demo simulator's address ("http://127.0.0.1:PORT"); empty when not the demo. Gateway thread.
    QString simulatorUrl() const;

    // Takes `target` (a channel id when targetKind is "channel", else a model id) down with
    // `kind` ("error:503", "rate_limit", "timeout", "hang", "drop_mid_stream", "slow") for
    // `seconds`. A bad request emits actionFailed().
    void setOutage(const QString &targetKind, const QString &target, const QString &kind, int seconds);
    void restoreOutage(quint64 outageId);
    void clearOutages();
    // Demo traffic: off, or on at `requestsPerSecond` with `streamShare` (0..1) over `models`
    // (no models: off).
    void setTraffic(bool running, double requestsPerSecond, double streamShare, const QStringList &models);
    void queryLog(const sy::service::RequestFilter &filter, quint64 generation);
    void fetchTrace(const QByteArray &requestId);
    // One admin API call (docs/admin-api.md) made in-process; answers with adminReplied(tag, ...).
    void adminCall(quint64 tag, const QByteArray &method, const QByteArray &target, const QByteArray &body);
    // Frames at 4 Hz while the window is shown, at 1 Hz (a coarse timer) while it is hidden: the
    // tray's state and tooltip still follow, and nothing else needs them. Gateway thread.
    void setWindowShown(bool shown);

signals:
    void started(const QString &url, const QString &demoKey);
    void failed(const QString &error);
    void frameReady(const sy::app::DashboardFrame &frame);
    void logPageReady(const sy::app::LogPage &page);
    void traceReady(const sy::app::TraceResult &trace);
    void actionFailed(const QString &message);
    void adminReplied(quint64 tag, int status, const QByteArray &body);

private:
    void publish();
    QStringList allModels() const;
    QStringList chatModels() const;
    DashboardFrame buildFrame();
    const Clock &m_clock;
    std::unique_ptr<boot::GatewayBoot> m_boot;      // the demo, the database and the gateway
    demo::DemoWorkspace *m_demo = nullptr;           // in m_boot, while the demo runs
    service::GatewayService *m_gateway = nullptr;    // in m_boot, once it listens
    std::unique_ptr<demo::TrafficGenerator> m_traffic;
    TrafficStatus m_trafficSettings;
    QTimer *m_ticker = nullptr;
    bool m_windowShown = true;
};

} // namespace sy::app
