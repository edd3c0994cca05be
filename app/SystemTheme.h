#pragma once
// SystemTheme: whether the system's palette is dark (its window colour's lightness below one
// half), read from QGuiApplication::palette() and read again on every
// QEvent::ApplicationPaletteChange, so the dashboard follows a switch between light and dark
// while it runs. (Qt 6.4 has no colour-scheme API; the palette is what platform themes set.)
//
// Thread: the UI thread; watches the application object.
#include <QObject>
#include <QPalette>

namespace sy::app {

class SystemTheme : public QObject {
    Q_OBJECT
    Q_PROPERTY(bool dark READ dark NOTIFY changed)
public:
    explicit SystemTheme(QObject *parent = nullptr);

    bool dark() const { return m_dark; }
    static bool isDark(const QPalette &palette);

signals:
    // The system palette changed (dark may or may not have).
    void changed();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    bool m_dark = false;
};

} // namespace sy::app
