#include "WindowSession.h"

#include <QCoreApplication>
#include <QEvent>
#include <QGuiApplication>
#include <QMetaMethod>
#include <QScreen>
#include <QSettings>
#include <QWindow>
#include <algorithm>

namespace sy::app {

namespace {
constexpr auto kGeometry = "window/geometry";
constexpr auto kMaximized = "window/maximized";
constexpr auto kScreen = "window/screen";
constexpr auto kPage = "window/page";
constexpr auto kPageProperty = "currentPage";
}

WindowSession::WindowSession(QWindow &window, QSettings &settings, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_settings(settings)
{
    m_window.installEventFilter(this);
    connect(qApp, &QCoreApplication::aboutToQuit, this, &WindowSession::save);
    m_saveSoon.setSingleShot(true);
    m_saveSoon.setInterval(1000);
    connect(&m_saveSoon, &QTimer::timeout, this, &WindowSession::save);
    // The QML window's page property notifies; a plain window's dynamic property does not.
    const QMetaObject *meta = m_window.metaObject();
    const int page = meta->indexOfProperty(kPageProperty);
    if (page >= 0 && meta->property(page).hasNotifySignal()) {
        const QMetaMethod start = metaObject()->method(metaObject()->indexOfMethod("saveSoon()"));
        connect(&m_window, meta->property(page).notifySignal(), this, start);
    }
}

void WindowSession::saveSoon()
{
    m_saveSoon.start();
}

QRect WindowSession::fittedGeometry(const QRect &available, QSize minimum)
{
    const QSize wanted(int(available.width() * 0.8), int(available.height() * 0.8));
    const QSize size = wanted.expandedTo(minimum).boundedTo(available.size());
    QRect rect(QPoint(0, 0), size);
    rect.moveCenter(available.center());
    return rect;
}

QScreen *WindowSession::screenNamed(const QString &name) const
{
    const QList<QScreen *> screens = QGuiApplication::screens();
    const auto found = std::find_if(screens.begin(), screens.end(), [&](QScreen *s) { return s->name() == name; });
    return found == screens.end() ? nullptr : *found;
}

void WindowSession::restore()
{
    const QRect saved = m_settings.value(kGeometry).toRect();
    QScreen *screen = screenNamed(m_settings.value(kScreen).toString());
    if (saved.isValid() && screen && screen->availableGeometry().intersects(saved)) {
        m_window.setScreen(screen);
        // A saved size larger than the screen is now (its resolution changed) is cut to fit.
        QRect rect = saved;
        rect.setSize(saved.size().boundedTo(screen->availableGeometry().size()));
        m_window.setGeometry(rect);
        if (m_settings.value(kMaximized).toBool())
            m_window.setWindowStates(Qt::WindowMaximized);
    } else {
        QScreen *target = m_window.screen() ? m_window.screen() : QGuiApplication::primaryScreen();
        if (target)
            m_window.setGeometry(fittedGeometry(target->availableGeometry()));
    }
    m_normalGeometry = m_window.geometry();
    bool ok = false;
    const int page = m_settings.value(kPage).toInt(&ok);
    if (ok && page >= 0)
        m_window.setProperty(kPageProperty, page);
}

void WindowSession::save()
{
    m_saveSoon.stop();
    const bool maximized = m_window.windowStates() & (Qt::WindowMaximized | Qt::WindowFullScreen);
    if (!maximized)
        m_normalGeometry = m_window.geometry();
    m_settings.setValue(kGeometry, m_normalGeometry);
    m_settings.setValue(kMaximized, maximized);
    if (m_window.screen())
        m_settings.setValue(kScreen, m_window.screen()->name());
    const QVariant page = m_window.property(kPageProperty);
    if (page.isValid())
        m_settings.setValue(kPage, page.toInt());
    m_settings.sync();
}

bool WindowSession::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == &m_window) {
        switch (event->type()) {
        case QEvent::Resize:
        case QEvent::Move:
            if (!(m_window.windowStates() & (Qt::WindowMaximized | Qt::WindowFullScreen | Qt::WindowMinimized)))
                m_normalGeometry = m_window.geometry();
            if (m_window.isVisible())
                saveSoon();
            break;
        case QEvent::Hide:
        case QEvent::Close:
            save();
            break;
        default:
            break;
        }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace sy::app
