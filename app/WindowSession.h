#pragma once
// WindowSession: the dashboard window across runs. On start it gets the geometry and page it had
// when it was last hidden or closed — only when the screen it was on still exists and the saved
// rectangle still overlaps that screen — else a size fitting the screen it opens on (80 % of the
// available geometry, clamped), centred. It saves on every hide, when the app quits, and a second
// after the page, size or position changed (a session that ends by a signal keeps them too).
//
// The page is the window's `currentPage` property (an int). Settings keys: window/geometry
// (QRect, the normal geometry: not the maximized one), window/maximized, window/screen (the
// screen's name), window/page.
//
// Thread: the UI thread. Does not own the window or the settings; both must outlive it.
#include <QObject>
#include <QPointer>
#include <QRect>
#include <QTimer>

class QScreen;
class QSettings;
class QWindow;

namespace sy::app {

class WindowSession : public QObject {
    Q_OBJECT
public:
    WindowSession(QWindow &window, QSettings &settings, QObject *parent = nullptr);

    // Applies the saved geometry and page (or the fitted size); call once, before the first show.
    void restore();
    // Writes the window's normal geometry, screen and page now.
    void save();

    // The size a window opens at on a screen with `available` geometry: 80 % of it, at least
    // `minimum` unless the screen is smaller, centred in it.
    static QRect fittedGeometry(const QRect &available, QSize minimum = {960, 640});

private slots:
    void saveSoon();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QScreen *screenNamed(const QString &name) const;

    QWindow &m_window;
    QSettings &m_settings;
    QRect m_normalGeometry;   // the last geometry while neither maximized nor full screen
    QTimer m_saveSoon;        // single shot: runs only after a change
};

} // namespace sy::app
