#include "Tray.h"

#include "GatewayHost.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QMenu>
#include <QPainter>
#include <QSystemTrayIcon>
#include <QWindow>

namespace sy::app {

namespace {

constexpr qint64 kFailingForMs = 10'000;   // a failed request keeps the icon red this long

QAction *addAction(QMenu &menu, const char *objectName, const QString &text)
{
    QAction *action = menu.addAction(text);
    action->setObjectName(QString::fromLatin1(objectName));
    return action;
}

} // namespace

Tray::Tray(GatewayHost &host, bool trayAvailable, QObject *parent)
    : QObject(parent)
    , m_host(host)
    , m_trayAvailable(trayAvailable)
    , m_quitOnLastWindowClosed(QGuiApplication::quitOnLastWindowClosed())
    , m_menu(std::make_unique<QMenu>())
{
    connect(addAction(*m_menu, "showDashboard", tr("Show dashboard")), &QAction::triggered, this, &Tray::showDashboard);
    m_menu->addSeparator();
    connect(addAction(*m_menu, "copyBaseUrl", tr("Copy base URL")), &QAction::triggered, this,
            [this] { QGuiApplication::clipboard()->setText(m_host.url() + QStringLiteral("/v1")); });
    connect(addAction(*m_menu, "copyDemoKey", tr("Copy demo key")), &QAction::triggered, this,
            [this] { QGuiApplication::clipboard()->setText(m_host.demoKey()); });
    m_menu->addSeparator();
    connect(addAction(*m_menu, "toggleTraffic", tr("Start demo traffic")), &QAction::triggered, this, &Tray::toggleTraffic);
    connect(addAction(*m_menu, "restoreOutages", tr("Restore all outages")), &QAction::triggered, &m_host, &GatewayHost::clearOutages);
    m_menu->addSeparator();
    connect(addAction(*m_menu, "quit", tr("Quit")), &QAction::triggered, qApp, &QCoreApplication::quit, Qt::QueuedConnection);

    if (m_trayAvailable) {
        // The window only hides on close: the app ends with Quit.
        QGuiApplication::setQuitOnLastWindowClosed(false);
        m_icon = new QSystemTrayIcon(this);
        m_icon->setContextMenu(m_menu.get());
        connect(m_icon, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
            if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
                showDashboard();
        });
    }
    connect(&m_host, &GatewayHost::statusChanged, this, &Tray::refresh);
    connect(&m_host, &GatewayHost::frameChanged, this, &Tray::refresh);
    refresh();
    if (m_icon)
        m_icon->show();
}

Tray::~Tray()
{
    if (m_icon)
        m_icon->hide();
    QGuiApplication::setQuitOnLastWindowClosed(m_quitOnLastWindowClosed);
}

void Tray::setWindow(QWindow *window)
{
    if (m_window)
        m_window->removeEventFilter(this);
    m_window = window;
    if (m_window)
        m_window->installEventFilter(this);
}

QAction *Tray::action(const char *objectName) const
{
    return m_menu->findChild<QAction *>(QString::fromLatin1(objectName));
}

Tray::State Tray::state() const
{
    if (!m_host.listening())
        return m_host.error().isEmpty() ? State::Stopped : State::Failing;
    if (m_sinceFailure.isValid() && m_sinceFailure.elapsed() < kFailingForMs)
        return State::Failing;
    return State::Listening;
}

QString Tray::toolTip() const
{
    if (m_host.listening())
        return tr("Switchyard: %1/v1 · %2 req/s").arg(m_host.url()).arg(m_host.requestsPerSecond(), 0, 'f', 1);
    if (!m_host.error().isEmpty())
        return tr("Switchyard is not running: %1").arg(m_host.error().section(QLatin1Char('\n'), 0, 0));
    return tr("Switchyard: starting the gateway…");
}

QIcon applicationIcon()
{
    QIcon builtIn;
    for (const int size : {16, 22, 24, 32, 48, 64, 128, 256})
        builtIn.addFile(QStringLiteral(":/switchyard/icons/switchyard-%1.png").arg(size), QSize(size, size));
    return QIcon::fromTheme(QStringLiteral("switchyard"), builtIn);
}

QIcon Tray::iconFor(State state)
{
    const QColor fill = state == State::Listening ? QColor(0x2e, 0x9d, 0x57)
                      : state == State::Failing   ? QColor(0xd0, 0x47, 0x3b)
                                                  : QColor(0x8a, 0x8a, 0x8a);
    QPixmap pixmap(64, 64);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    // The app's icon, and the state as a badge in the lower right corner (big enough to read at
    // the tray's 16-24 px).
    painter.drawPixmap(QRect(0, 0, 56, 56), applicationIcon().pixmap(56, 56));
    painter.setPen(QPen(Qt::white, 4));
    painter.setBrush(fill);
    painter.drawEllipse(QPointF(kBadgeCentre, kBadgeCentre), 14, 14);
    painter.end();
    return QIcon(pixmap);
}

bool Tray::eventFilter(QObject *watched, QEvent *event)
{
    if (m_trayAvailable && watched == m_window && event->type() == QEvent::Close) {
        event->ignore();
        m_window->hide();
        return true;
    }
    return QObject::eventFilter(watched, event);
}

void Tray::refresh()
{
    if (m_host.failed() > m_lastFailed)
        m_sinceFailure.start();
    m_lastFailed = m_host.failed();

    action("copyBaseUrl")->setEnabled(m_host.listening());
    action("copyDemoKey")->setVisible(!m_host.demoKey().isEmpty());
    QAction *traffic = action("toggleTraffic");
    traffic->setVisible(m_host.trafficAvailable());
    traffic->setText(m_host.trafficRunning() ? tr("Stop demo traffic") : tr("Start demo traffic"));
    action("restoreOutages")->setEnabled(m_host.outages()->rowCount() > 0);

    if (!m_icon)
        return;
    const State now = state();
    if (now != m_shownState || m_icon->icon().isNull()) {
        m_shownState = now;
        m_icon->setIcon(iconFor(now));
    }
    m_icon->setToolTip(toolTip());
}

void Tray::showDashboard()
{
    if (!m_window)
        return;
    m_window->show();
    m_window->raise();
    m_window->requestActivate();
}

void Tray::toggleTraffic()
{
    const QStringList models = m_host.trafficModels().isEmpty() ? m_host.modelIds() : m_host.trafficModels();
    m_host.setTraffic(!m_host.trafficRunning(), m_host.trafficRate(), m_host.trafficStreamShare(), models);
}

} // namespace sy::app
