#pragma once
// Autostart: "Start at login" and "start hidden in the tray" for the desktop app, kept as an XDG
// autostart entry (switchyard.desktop in $XDG_CONFIG_HOME/autostart, ~/.config/autostart by
// default) that the desktop session starts at login. The entry is the only state: present means
// start at login, `--hidden` on its Exec line means start hidden. An entry the user switched off
// in the session's own settings (Hidden=true) reads as off.
//
// Thread: the UI thread. Each write is atomic (QSaveFile); a failed one leaves the entry as it
// was, keeps the properties as read from disk and sets error().
#include <QObject>
#include <QString>

namespace sy::app {

class Autostart : public QObject {
    Q_OBJECT
    Q_PROPERTY(bool startAtLogin READ startAtLogin WRITE setStartAtLogin NOTIFY changed)
    Q_PROPERTY(bool startHidden READ startHidden WRITE setStartHidden NOTIFY changed)
    Q_PROPERTY(QString error READ error NOTIFY changed)
    Q_PROPERTY(QString entryPath READ entryPath CONSTANT)
public:
    // `program`: the executable the entry starts (the running one in the app). `entryPath`: the
    // entry's file; empty: defaultEntryPath().
    explicit Autostart(QString program, QString entryPath = QString(), QObject *parent = nullptr);

    // $XDG_CONFIG_HOME/autostart/switchyard.desktop.
    static QString defaultEntryPath();
    // The entry's text for `program` (quoted as the desktop entry specification asks).
    static QString entryText(const QString &program, bool hidden);

    bool startAtLogin() const { return m_startAtLogin; }
    bool startHidden() const { return m_startHidden; }
    QString error() const { return m_error; }
    QString entryPath() const { return m_entryPath; }

    void setStartAtLogin(bool on);
    // Rewrites the entry when it exists; without one, nothing to change (the switch shows off).
    void setStartHidden(bool hidden);

signals:
    void changed();

private:
    void read();
    bool write(bool hidden);

    const QString m_program;
    const QString m_entryPath;
    bool m_startAtLogin = false;
    bool m_startHidden = false;
    QString m_error;
};

} // namespace sy::app
