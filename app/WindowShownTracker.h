#pragma once
// WindowShownTracker: whether the dashboard window is on screen — visible and exposed, so hidden
// to the tray, minimized or unmapped all count as not shown. Writes it to the gateway host
// (frames slow down while hidden) and to the root item's `shown` property (pages stop redrawing
// charts), on every change.
//
// Thread: the UI thread. Does not own the window or the host; both must outlive it.
#include "GatewayHost.h"

#include <QEvent>
#include <QWindow>

namespace sy::app {

class WindowShownTracker : public QObject {
public:
    WindowShownTracker(QWindow &window, GatewayHost &host, QObject *parent = nullptr)
        : QObject(parent), m_window(window), m_host(host)
    {
        m_window.installEventFilter(this);
        update();
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == &m_window && (event->type() == QEvent::Expose || event->type() == QEvent::Show
                                     || event->type() == QEvent::Hide || event->type() == QEvent::WindowStateChange))
            update();
        return QObject::eventFilter(watched, event);
    }

private:
    void update()
    {
        const bool shown = m_window.isVisible() && m_window.isExposed()
                           && !(m_window.windowStates() & Qt::WindowMinimized);
        m_host.setWindowShown(shown);
        m_window.setProperty("shown", shown);
    }

    QWindow &m_window;
    GatewayHost &m_host;
};

} // namespace sy::app
