#pragma once
// SingleInstance: one desktop app per user, so that one process owns the gateway's port and its
// database. The first start holds a lock file and listens on a local socket, both in the user's
// runtime directory ($XDG_RUNTIME_DIR/switchyard/); a later start finds the lock taken, asks the
// first one over the socket to show its window and ends. A crashed first start leaves no stale
// owner: the lock names its process and is taken over once that process is gone.
//
// Thread: the UI thread (construct, claim() and destroy there); activationRequested() is emitted
// there.
#include <QLockFile>
#include <QObject>
#include <QString>
#include <memory>

class QLocalServer;

namespace sy::app {

class SingleInstance : public QObject {
    Q_OBJECT
public:
    enum class Role {
        Primary,     // this process owns the app: it listens for later starts
        Secondary,   // another process owns it and was asked to show its window
        Failed,      // neither: error() says why
    };

    // `directory`: where the lock and the socket live; empty: defaultDirectory().
    explicit SingleInstance(QString directory = QString(), QObject *parent = nullptr);
    ~SingleInstance() override;

    // $XDG_RUNTIME_DIR/switchyard (a private directory the session removes at logout).
    static QString defaultDirectory();

    // Takes the app, or hands over to the process that has it. Waits at most about 2 s, for an
    // owner that holds the lock but is not listening yet.
    Role claim();
    QString error() const { return m_error; }
    // The owner's process id (Secondary; 0 when unknown).
    qint64 ownerPid() const { return m_ownerPid; }

signals:
    // Primary: a later start asked for the window.
    void activationRequested();

private:
    bool listen();
    bool askOwnerToActivate();

    const QString m_directory;
    QLockFile m_lock;
    std::unique_ptr<QLocalServer> m_server;
    QString m_error;
    qint64 m_ownerPid = 0;
};

} // namespace sy::app
