#pragma once
// TextFiles: reading and writing a text file for the dashboard (import / export of the
// configuration), and the file dialogs to pick one. QML has neither; this is all it needs.
//
// Paths may be local paths or file: URLs. Text is UTF-8. Thread: the UI thread (the dialogs are
// modal widgets dialogs; the app is a QApplication).
#include <QObject>
#include <QString>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>

namespace sy::app {

class TextFiles : public QObject {
    Q_OBJECT
    QML_ELEMENT
public:
    // Files larger than this are refused by loadText(): a configuration file is at most 16 MiB.
    static constexpr qint64 kMaxBytes = 16 * 1024 * 1024;

    explicit TextFiles(QObject *parent = nullptr) : QObject(parent) {}

    // Writes `text` to `path`, replacing the file only once everything is written.
    // Returns "" on success, else the reason.
    Q_INVOKABLE QString saveText(const QString &path, const QString &text) const;
    // {text, error}: the file's text and "" on success; "" and the reason on failure.
    Q_INVOKABLE QVariantMap loadText(const QString &path) const;

    // Modal dialogs, starting in the home directory; the chosen local path, or "" when
    // cancelled. `filter` as QFileDialog's ("YAML (*.yaml *.yml)").
    Q_INVOKABLE QString chooseSaveFile(const QString &title, const QString &suggestedName, const QString &filter) const;
    Q_INVOKABLE QString chooseOpenFile(const QString &title, const QString &filter) const;

    // A local path for a path or a file: URL ("" for other URLs).
    static QString localPath(const QString &pathOrUrl);
};

} // namespace sy::app
