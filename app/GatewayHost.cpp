#include "GatewayHost.h"

#include "GatewayWorker.h"
#include "core/EpollEventDispatcher.h"

#include <QJSEngine>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>

namespace sy::app {

GatewayHost::GatewayHost(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<DashboardFrame>();
    qRegisterMetaType<LogPage>();
    qRegisterMetaType<TraceResult>();
    m_thread.setObjectName(QStringLiteral("gateway"));
    m_logTimer.setInterval(1000);
    connect(&m_logTimer, &QTimer::timeout, this, &GatewayHost::refreshRequestLog);
    connect(&m_requestLog, &RequestLogModel::filterChanged, this, &GatewayHost::refreshRequestLog);
}

GatewayHost::~GatewayHost()
{
    if (m_worker) {
        QMetaObject::invokeMethod(m_worker, &GatewayWorker::stop, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
        delete m_worker;
    }
}

void GatewayHost::start(const GatewayStartOptions &options)
{
    Q_ASSERT(!m_worker);
    m_worker = new GatewayWorker;
    m_worker->moveToThread(&m_thread);
    connect(m_worker, &GatewayWorker::started, this, &GatewayHost::onStarted, Qt::QueuedConnection);
    connect(m_worker, &GatewayWorker::failed, this, &GatewayHost::onFailed, Qt::QueuedConnection);
    connect(m_worker, &GatewayWorker::frameReady, this, &GatewayHost::onFrame, Qt::QueuedConnection);
    connect(m_worker, &GatewayWorker::logPageReady, this, &GatewayHost::onLogPage, Qt::QueuedConnection);
    connect(m_worker, &GatewayWorker::traceReady, this, &GatewayHost::onTrace, Qt::QueuedConnection);
    connect(m_worker, &GatewayWorker::actionFailed, this, &GatewayHost::onActionFailed, Qt::QueuedConnection);
    connect(m_worker, &GatewayWorker::adminReplied, this, &GatewayHost::onAdminReplied, Qt::QueuedConnection);
    // The gateway thread runs on epoll like switchyard-gateway (SWITCHYARD_EVENT_DISPATCHER=qt:
    // Qt's default); the UI thread keeps the platform's dispatcher.
    if (QAbstractEventDispatcher *dispatcher = createGatewayEventDispatcher())
        m_thread.setEventDispatcher(dispatcher);
    m_thread.start();
    QMetaObject::invokeMethod(m_worker, [w = m_worker, options, shown = m_windowShown] {
        w->setWindowShown(shown);   // the window may have been hidden before the gateway started
        w->start(options);
    }, Qt::QueuedConnection);
}

void GatewayHost::setOutage(const QString &targetKind, const QString &target, const QString &kind, int seconds)
{
    if (!m_worker)
        return;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, targetKind, target, kind, seconds] {
        w->setOutage(targetKind, target, kind, seconds);
    }, Qt::QueuedConnection);
}

void GatewayHost::restoreOutage(double outageId)
{
    if (!m_worker)
        return;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, id = quint64(outageId)] { w->restoreOutage(id); },
                              Qt::QueuedConnection);
}

void GatewayHost::clearOutages()
{
    if (m_worker)
        QMetaObject::invokeMethod(m_worker, &GatewayWorker::clearOutages, Qt::QueuedConnection);
}

void GatewayHost::setTraffic(bool running, double requestsPerSecond, double streamShare, const QStringList &models)
{
    if (!m_worker)
        return;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, running, requestsPerSecond, streamShare, models] {
        w->setTraffic(running, requestsPerSecond, streamShare, models);
    }, Qt::QueuedConnection);
}

void GatewayHost::showTrace(const QString &requestId)
{
    if (!m_worker)
        return;
    m_traceWanted = requestId.toLatin1();
    QMetaObject::invokeMethod(m_worker, [w = m_worker, id = m_traceWanted] { w->fetchTrace(id); },
                              Qt::QueuedConnection);
}

void GatewayHost::refreshRequestLog()
{
    if (!m_worker || !m_listening)
        return;
    const quint64 generation = ++m_logGeneration;
    QMetaObject::invokeMethod(m_worker, [w = m_worker, filter = m_requestLog.filter(), generation] {
        w->queryLog(filter, generation);
    }, Qt::QueuedConnection);
}

void GatewayHost::admin(const QString &method, const QString &target, const QJSValue &body, const QJSValue &callback)
{
    QByteArray bytes;
    if (body.isString())
        bytes = body.toString().toUtf8();
    else if (!body.isUndefined() && !body.isNull())
        bytes = QJsonDocument::fromVariant(body.toVariant()).toJson(QJsonDocument::Compact);
    const quint64 tag = ++m_adminTag;
    if (callback.isCallable())
        m_adminCallbacks.emplace(tag, callback);
    if (!m_worker) {
        onAdminReplied(tag, 503, R"({"error":{"message":"The gateway is not running.","type":"server_error","param":null,"code":null}})");
        return;
    }
    QMetaObject::invokeMethod(m_worker, [w = m_worker, tag, m = method.toLatin1(), t = target.toUtf8(), bytes] {
        w->adminCall(tag, m, t, bytes);
    }, Qt::QueuedConnection);
}

void GatewayHost::onAdminReplied(quint64 tag, int status, const QByteArray &body)
{
    const auto found = m_adminCallbacks.find(tag);
    if (found == m_adminCallbacks.end())
        return;
    QJSValue callback = std::move(found->second);
    m_adminCallbacks.erase(found);
    QJSEngine *engine = qjsEngine(this);
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    QJSValue reply;
    if (error.error != QJsonParseError::NoError || !engine)
        reply = QJSValue(QString::fromUtf8(body));
    else
        reply = engine->toScriptValue(document.isArray() ? QVariant(document.array().toVariantList())
                                                         : QVariant(document.object().toVariantMap()));
    const QJSValue result = callback.call({QJSValue(status), reply});
    if (result.isError())
        qWarning("admin callback failed: %s", qPrintable(result.toString()));
}

void GatewayHost::setRequestLogLive(bool live)
{
    if (live == requestLogLive())
        return;
    if (live) {
        m_logTimer.start();
        refreshRequestLog();
    } else {
        m_logTimer.stop();
    }
    emit requestLogLiveChanged();
}

void GatewayHost::setWindowShown(bool shown)
{
    if (shown == m_windowShown)
        return;
    m_windowShown = shown;
    if (m_worker)
        QMetaObject::invokeMethod(m_worker, [w = m_worker, shown] { w->setWindowShown(shown); }, Qt::QueuedConnection);
    emit windowShownChanged();
}

void GatewayHost::onStarted(const QString &url, const QString &demoKey)
{
    m_listening = true;
    m_url = url;
    m_demoKey = demoKey;
    m_error.clear();
    emit statusChanged();
    refreshRequestLog();
}

void GatewayHost::onFailed(const QString &error)
{
    std::fprintf(stderr, "switchyard: %s\n", qPrintable(error));
    m_listening = false;
    m_error = error;
    emit statusChanged();
}

void GatewayHost::onFrame(const DashboardFrame &frame)
{
    m_frame = frame;
    m_requestRate.add(frame.snapshot.at.toMSecsSinceEpoch(), frame.snapshot.requests);
    m_tiles.apply(frame.snapshot);
    m_history.addSnapshot(frame.snapshot);
    m_feed.apply(frame.snapshot);
    m_outages.setOutages(frame.outages);
    emit frameChanged();
}

void GatewayHost::onLogPage(const LogPage &page)
{
    if (page.generation == m_logGeneration)   // an older query's answer is already stale
        m_requestLog.setPage(page.records);
}

void GatewayHost::onTrace(const TraceResult &trace)
{
    if (trace.requestId != m_traceWanted)
        return;
    if (trace.record)
        m_trace.setRecord(*trace.record);
    else
        m_trace.clear();
}

void GatewayHost::onActionFailed(const QString &message)
{
    m_lastActionError = message;
    emit lastActionErrorChanged();
}

} // namespace sy::app
