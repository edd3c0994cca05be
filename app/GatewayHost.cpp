#include "GatewayHost.h"

#include "config/ConfigLoader.h"
#include "demo/DemoWorkspace.h"
#include "service/GatewayService.h"

#include <QTimer>

namespace sy::app {

// Lives on the worker thread; owns every gateway object.
class GatewayWorker : public QObject {
    Q_OBJECT
public:
    void start(const QString &configPath, quint16 port)
    {
        GatewaySnapshot snapshot;
        config::LoadResult loaded;
        if (configPath.isEmpty()) {
            m_demo = std::make_unique<demo::DemoWorkspace>();
            loaded = m_demo->start(port ? port : 8080);
            snapshot.demoKey = QString::fromLatin1(demo::kDemoKey);
        } else {
            loaded = config::loadConfigFile(configPath);
            if (loaded.config && port)
                loaded.config->listenPort = port;
        }
        if (!loaded.config) {
            QStringList lines;
            for (const auto &e : loaded.errors)
                lines << e.toString();
            snapshot.error = lines.join('\n');
            emit snapshotReady(snapshot);
            return;
        }
        m_gateway = std::make_unique<service::GatewayService>(std::move(*loaded.config));
        QString error;
        if (!m_gateway->start(&error)) {
            snapshot.error = QStringLiteral("The gateway cannot start: %1").arg(error);
            m_gateway.reset();
            emit snapshotReady(snapshot);
            return;
        }
        m_base = snapshot;
        m_base.listening = true;
        m_base.url = m_gateway->listenAddress();
        publish();
        // A steady 4 Hz, however busy the gateway is: the UI gets frames, not a message per request.
        // Created here, on the worker thread, so the timer belongs to it.
        m_ticker = new QTimer(this);
        m_ticker->setInterval(250);
        connect(m_ticker, &QTimer::timeout, this, &GatewayWorker::publish);
        m_ticker->start();
    }

    void stop()
    {
        delete m_ticker;
        m_ticker = nullptr;
        m_gateway.reset();
        m_demo.reset();
    }

signals:
    void snapshotReady(const sy::app::GatewaySnapshot &snapshot);

private:
    void publish()
    {
        GatewaySnapshot snapshot = m_base;
        const service::GatewayCounters &c = m_gateway->counters();
        snapshot.requests = c.requests;
        snapshot.succeeded = c.succeeded;
        snapshot.failed = c.failed;
        snapshot.inFlight = c.inFlight;
        emit snapshotReady(snapshot);
    }

    std::unique_ptr<demo::DemoWorkspace> m_demo;
    std::unique_ptr<service::GatewayService> m_gateway;
    GatewaySnapshot m_base;
    QTimer *m_ticker = nullptr;
};

GatewayHost::GatewayHost(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<GatewaySnapshot>();
    m_thread.setObjectName(QStringLiteral("gateway"));
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

void GatewayHost::start(const QString &configPath, quint16 port)
{
    m_worker = new GatewayWorker;
    m_worker->moveToThread(&m_thread);
    connect(m_worker, &GatewayWorker::snapshotReady, this, &GatewayHost::applySnapshot, Qt::QueuedConnection);
    m_thread.start();
    QMetaObject::invokeMethod(m_worker, [w = m_worker, configPath, port] { w->start(configPath, port); },
                              Qt::QueuedConnection);
}

void GatewayHost::applySnapshot(const GatewaySnapshot &snapshot)
{
    m_snapshot = snapshot;
    emit snapshotChanged();
}

} // namespace sy::app

#include "GatewayHost.moc"
