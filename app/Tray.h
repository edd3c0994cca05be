#pragma once
// Tray: the app in the system tray. The app's icon with a badge for the gateway's state
// (listening, failing, stopped), a tooltip with the base URL and req/s, and a menu: show the dashboard, copy
// the base URL or the demo key, demo traffic on/off, restore all outages, quit.
// With a tray, closing the window hides it and the gateway keeps running (Quit ends the app);
// without one, closing the window quits as usual.
//
// Thread: the UI thread (construct, use and destroy there).
#include <QElapsedTimer>
#include <QIcon>
#include <QObject>
#include <QPointer>
#include <memory>

class QAction;
class QMenu;
class QSystemTrayIcon;
class QWindow;

namespace sy::app {

class GatewayHost;

// The app's icon (window, tray, dialogs): the installed icon theme's `switchyard`, else the
// PNGs built into the program.
QIcon applicationIcon();

class Tray : public QObject {
    Q_OBJECT
public:
    enum class State { Stopped, Listening, Failing };

    // `trayAvailable`: QSystemTrayIcon::isSystemTrayAvailable() in the app; a parameter so that
    // both behaviours can be tested offscreen. The icon is only shown when it is true.
    Tray(GatewayHost &host, bool trayAvailable, QObject *parent = nullptr);
    ~Tray() override;

    // The dashboard window: shown by "Show dashboard", hidden instead of closed when the tray is
    // available.
    void setWindow(QWindow *window);

    bool trayAvailable() const { return m_trayAvailable; }
    // Failing: the gateway could not start, or a request failed in the last 10 s.
    State state() const;
    QString toolTip() const;
    QMenu *menu() const { return m_menu.get(); }
    // The menu's actions by objectName: showDashboard, copyBaseUrl, copyDemoKey, toggleTraffic,
    // restoreOutages, quit.
    QAction *action(const char *objectName) const;
    // The status icon for `state`: the app's icon with a badge of the state's colour centred at
    // (kBadgeCentre, kBadgeCentre) of its 64 px pixmap.
    static QIcon iconFor(State state);
    static constexpr int kBadgeCentre = 48;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refresh();
    void showDashboard();
    void toggleTraffic();

    GatewayHost &m_host;
    const bool m_trayAvailable;
    const bool m_quitOnLastWindowClosed;   // the app's setting before, restored at the end
    std::unique_ptr<QMenu> m_menu;
    QSystemTrayIcon *m_icon = nullptr;
    QPointer<QWindow> m_window;
    double m_lastFailed = 0;
    QElapsedTimer m_sinceFailure;          // invalid: no failure seen
    State m_shownState = State::Stopped;
};

} // namespace sy::app
