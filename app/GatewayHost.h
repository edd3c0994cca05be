#pragma once
// GatewayHost: the dashboard's view of the gateway. It runs a GatewayWorker on its own thread,
// applies the frames the worker sends at 4 Hz to the models, and forwards the UI's actions to the
// worker by queued invocation; results come back by signal. The UI never calls into gateway
// objects.
//
// Thread: construct, start() and use on the UI thread.
#include "DashboardFrame.h"
#include "GatewayWorker.h"
#include "models/ChannelHistoryModel.h"
#include "models/ChannelTilesModel.h"
#include "models/CounterRate.h"
#include "models/FeedModel.h"
#include "models/OutagesModel.h"
#include "models/RequestLogModel.h"
#include "models/TraceModel.h"

#include <QJSValue>
#include <QObject>
#include <QThread>
#include <QTimer>
#include <map>

namespace sy::app {

class GatewayHost : public QObject {
    Q_OBJECT
    Q_PROPERTY(bool listening READ listening NOTIFY statusChanged)
    Q_PROPERTY(QString url READ url NOTIFY statusChanged)
    Q_PROPERTY(QString demoKey READ demoKey NOTIFY statusChanged)
    Q_PROPERTY(QString error READ error NOTIFY statusChanged)
    Q_PROPERTY(QString lastActionError READ lastActionError NOTIFY lastActionErrorChanged)
    Q_PROPERTY(double requests READ requests NOTIFY frameChanged)
    Q_PROPERTY(double succeeded READ succeeded NOTIFY frameChanged)
    Q_PROPERTY(double failed READ failed NOTIFY frameChanged)
    Q_PROPERTY(double failedOver READ failedOver NOTIFY frameChanged)
    Q_PROPERTY(int inFlight READ inFlight NOTIFY frameChanged)
    Q_PROPERTY(double tokens READ tokens NOTIFY frameChanged)
    Q_PROPERTY(QString balance READ balance NOTIFY frameChanged)
    Q_PROPERTY(QString spendToday READ spendToday NOTIFY frameChanged)
    Q_PROPERTY(double requestsPerSecond READ requestsPerSecond NOTIFY frameChanged)
    Q_PROPERTY(QStringList keyNames READ keyNames NOTIFY frameChanged)
    Q_PROPERTY(QStringList modelIds READ modelIds NOTIFY frameChanged)
    Q_PROPERTY(QStringList channelIds READ channelIds NOTIFY frameChanged)
    Q_PROPERTY(bool trafficAvailable READ trafficAvailable NOTIFY frameChanged)
    Q_PROPERTY(bool trafficRunning READ trafficRunning NOTIFY frameChanged)
    Q_PROPERTY(double trafficRate READ trafficRate NOTIFY frameChanged)
    Q_PROPERTY(double trafficStreamShare READ trafficStreamShare NOTIFY frameChanged)
    Q_PROPERTY(QStringList trafficModels READ trafficModels NOTIFY frameChanged)
    Q_PROPERTY(double trafficSent READ trafficSent NOTIFY frameChanged)
    Q_PROPERTY(double trafficSucceeded READ trafficSucceeded NOTIFY frameChanged)
    Q_PROPERTY(double trafficFailed READ trafficFailed NOTIFY frameChanged)
    // Fetch a page of the request log every second while true (the Requests page is shown).
    Q_PROPERTY(bool requestLogLive READ requestLogLive WRITE setRequestLogLive NOTIFY requestLogLiveChanged)
    // Whether the dashboard window is on screen (visible and exposed); set by the app. While it is
    // not, frames come at 1 Hz instead of 4 (the tray still follows the state).
    Q_PROPERTY(bool windowShown READ windowShown WRITE setWindowShown NOTIFY windowShownChanged)
    Q_PROPERTY(sy::app::ChannelTilesModel *tiles READ tiles CONSTANT)
    Q_PROPERTY(sy::app::ChannelHistoryModel *history READ history CONSTANT)
    Q_PROPERTY(sy::app::FeedModel *feed READ feed CONSTANT)
    Q_PROPERTY(sy::app::OutagesModel *outages READ outages CONSTANT)
    Q_PROPERTY(sy::app::RequestLogModel *requestLog READ requestLog CONSTANT)
    Q_PROPERTY(sy::app::TraceModel *trace READ trace CONSTANT)
public:
    explicit GatewayHost(QObject *parent = nullptr);
    ~GatewayHost() override;

    // Starts the worker thread (on an epoll event loop, core/EpollEventDispatcher.h) and the
    // gateway on it (see GatewayStartOptions). When it cannot start, error() says what failed,
    // the file or port, and what to do; it is printed on stderr too.
    void start(const GatewayStartOptions &options);

    // Failure lab (see GatewayWorker::setOutage for the names).
    Q_INVOKABLE void setOutage(const QString &targetKind, const QString &target, const QString &kind, int seconds);
    Q_INVOKABLE void restoreOutage(double outageId);
    Q_INVOKABLE void clearOutages();
    // Demo traffic (no models: off).
    Q_INVOKABLE void setTraffic(bool running, double requestsPerSecond, double streamShare, const QStringList &models);
    // Loads `requestId`'s route trace into trace().
    Q_INVOKABLE void showTrace(const QString &requestId);
    Q_INVOKABLE void refreshRequestLog();
    // The editors' way to change anything: one admin API call (docs/admin-api.md), in-process.
    // `body`: a JS object or array (sent as JSON), a string (sent as is: YAML for PUT /admin/config)
    // or undefined. `callback(status, reply)` runs later on the UI thread; `reply` is the parsed
    // JSON answer (errors: {error: {message, param}}), or the text when it is not JSON (YAML export).
    Q_INVOKABLE void admin(const QString &method, const QString &target, const QJSValue &body, const QJSValue &callback);

    bool listening() const { return m_listening; }
    QString url() const { return m_url; }
    QString demoKey() const { return m_demoKey; }
    // Why the gateway is not running (empty while starting or running).
    QString error() const { return m_error; }
    QString lastActionError() const { return m_lastActionError; }
    double requests() const { return double(m_frame.snapshot.requests); }
    double succeeded() const { return double(m_frame.snapshot.succeeded); }
    double failed() const { return double(m_frame.snapshot.failed); }
    double failedOver() const { return double(m_frame.snapshot.failedOver); }
    int inFlight() const { return m_frame.snapshot.inFlight; }
    double tokens() const { return double(m_frame.snapshot.promptTokens + m_frame.snapshot.completionTokens); }
    // Money as display text in the workspace currency ("—" when the workspace is not metered).
    QString balance() const { return money(m_frame.snapshot.balance); }
    QString spendToday() const { return money(m_frame.snapshot.spendToday); }
    QString money(const std::optional<double> &amount) const
    {
        if (!amount)
            return QStringLiteral("—");
        // Cents for large sums; small spends need the fractions of a cent that LLM calls cost.
        const int decimals = std::abs(*amount) >= 10 ? 2 : 4;
        return QStringLiteral("%1 %2").arg(*amount, 0, 'f', decimals).arg(m_frame.snapshot.currency);
    }
    double requestsPerSecond() const { return m_requestRate.perSecond(); }
    QStringList keyNames() const { return m_frame.keyNames; }
    QStringList modelIds() const { return m_frame.modelIds; }
    QStringList channelIds() const { return m_frame.channelIds; }
    bool trafficAvailable() const { return m_frame.traffic.available; }
    bool trafficRunning() const { return m_frame.traffic.running; }
    double trafficRate() const { return m_frame.traffic.requestsPerSecond; }
    double trafficStreamShare() const { return m_frame.traffic.streamShare; }
    QStringList trafficModels() const { return m_frame.traffic.models; }
    double trafficSent() const { return double(m_frame.traffic.sent); }
    double trafficSucceeded() const { return double(m_frame.traffic.succeeded); }
    double trafficFailed() const { return double(m_frame.traffic.failed); }
    bool requestLogLive() const { return m_logTimer.isActive(); }
    void setRequestLogLive(bool live);
    bool windowShown() const { return m_windowShown; }
    void setWindowShown(bool shown);

    ChannelTilesModel *tiles() { return &m_tiles; }
    ChannelHistoryModel *history() { return &m_history; }
    FeedModel *feed() { return &m_feed; }
    OutagesModel *outages() { return &m_outages; }
    RequestLogModel *requestLog() { return &m_requestLog; }
    TraceModel *trace() { return &m_trace; }

signals:
    void statusChanged();
    void frameChanged();
    void lastActionErrorChanged();
    void requestLogLiveChanged();
    void windowShownChanged();

private:
    void onStarted(const QString &url, const QString &demoKey);
    void onFailed(const QString &error);
    void onFrame(const sy::app::DashboardFrame &frame);
    void onLogPage(const sy::app::LogPage &page);
    void onTrace(const sy::app::TraceResult &trace);
    void onActionFailed(const QString &message);
    void onAdminReplied(quint64 tag, int status, const QByteArray &body);

    QThread m_thread;
    GatewayWorker *m_worker = nullptr;
    bool m_listening = false;
    QString m_url;
    QString m_demoKey;
    QString m_error;
    QString m_lastActionError;
    DashboardFrame m_frame;
    CounterRate m_requestRate;
    ChannelTilesModel m_tiles;
    ChannelHistoryModel m_history;
    FeedModel m_feed;
    OutagesModel m_outages;
    RequestLogModel m_requestLog;
    TraceModel m_trace;
    QTimer m_logTimer;
    quint64 m_logGeneration = 0;
    QByteArray m_traceWanted;
    bool m_windowShown = true;
    quint64 m_adminTag = 0;
    std::map<quint64, QJSValue> m_adminCallbacks;
};

} // namespace sy::app
