#include "TextFiles.h"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QSaveFile>
#include <QStringDecoder>
#include <QUrl>

namespace sy::app {

QString TextFiles::localPath(const QString &pathOrUrl)
{
    if (pathOrUrl.startsWith(QLatin1String("file:")))
        return QUrl(pathOrUrl).toLocalFile();
    const QUrl url(pathOrUrl);
    // "C:/x" parses with scheme "c"; only a scheme longer than a drive letter makes it a URL.
    if (url.isValid() && url.scheme().size() > 1)
        return QString();
    return pathOrUrl;
}

QString TextFiles::saveText(const QString &path, const QString &text) const
{
    const QString local = localPath(path);
    if (local.isEmpty())
        return tr("Not a local file: %1").arg(path);
    QSaveFile file(local);
    if (!file.open(QIODevice::WriteOnly))
        return tr("Cannot write %1: %2").arg(local, file.errorString());
    // Owner only, like the database: an export may carry credentials and the admin token.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const QByteArray bytes = text.toUtf8();
    if (file.write(bytes) != bytes.size() || !file.commit())
        return tr("Cannot write %1: %2").arg(local, file.errorString());
    return QString();
}

QVariantMap TextFiles::loadText(const QString &path) const
{
    auto failed = [](const QString &reason) { return QVariantMap{{"text", QString()}, {"error", reason}}; };
    const QString local = localPath(path);
    if (local.isEmpty())
        return failed(tr("Not a local file: %1").arg(path));
    QFile file(local);
    if (!file.open(QIODevice::ReadOnly))
        return failed(tr("Cannot read %1: %2").arg(local, file.errorString()));
    const QByteArray bytes = file.read(kMaxBytes + 1);
    if (bytes.size() > kMaxBytes)
        return failed(tr("%1 is larger than 16 MiB.").arg(local));
    if (file.error() != QFileDevice::NoError)
        return failed(tr("Cannot read %1: %2").arg(local, file.errorString()));
    QStringDecoder decoder(QStringDecoder::Utf8);
    const QString text = decoder(bytes);
    if (decoder.hasError())
        return failed(tr("%1 is not UTF-8 text.").arg(local));
    return QVariantMap{{"text", text}, {"error", QString()}};
}

QString TextFiles::chooseSaveFile(const QString &title, const QString &suggestedName, const QString &filter) const
{
    // A bare name starts in the home directory, not wherever the app was started from.
    const QString start = QDir::isRelativePath(suggestedName) ? QDir::home().filePath(suggestedName) : suggestedName;
    return QFileDialog::getSaveFileName(nullptr, title, start, filter);
}

QString TextFiles::chooseOpenFile(const QString &title, const QString &filter) const
{
    return QFileDialog::getOpenFileName(nullptr, title, QDir::homePath(), filter);
}

} // namespace sy::app
