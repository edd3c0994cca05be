#include "storage/DatabaseFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace sy::storage {

namespace {

constexpr char kSqliteHeader[] = "SQLite format 3";  // 16 bytes with its terminating NUL
constexpr qint64 kSqliteHeaderSize = 100;            // the database header of page 1

} // namespace

std::variant<PreparedFile, QString> prepareDatabaseFile(const QString &path)
{
    if (path.isEmpty())
        return QStringLiteral("no database file given");
    const QFileInfo info(path);
    if (info.exists()) {
        if (!info.isFile())
            return QStringLiteral("%1 is not a regular file").arg(path);
        if (info.size() == 0)
            return PreparedFile{true};  // SQLite treats an empty file as a new database
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        const QByteArray head = file.read(kSqliteHeaderSize);
        if (head.size() < kSqliteHeaderSize || !head.startsWith(QByteArray(kSqliteHeader, sizeof kSqliteHeader)))
            return QStringLiteral("%1 is not a SQLite database; it was left unchanged").arg(path);
        return PreparedFile{false};
    }
    const QString dir = info.absolutePath();
    if (!QDir().mkpath(dir))
        return QStringLiteral("cannot create the directory %1").arg(dir);
    QFile file(path);
    // NewOnly: never truncate a file that appeared in between. Permissions apply at creation, so
    // the file is never readable by others, not even for a moment.
    if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly, QFileDevice::ReadOwner | QFileDevice::WriteOwner))
        return QStringLiteral("cannot create %1: %2").arg(path, file.errorString());
    return PreparedFile{true};
}

SidecarFiles::SidecarFiles(const QString &databasePath)
    : m_wal(databasePath + QStringLiteral("-wal")),
      m_shm(databasePath + QStringLiteral("-shm")),
      m_walExisted(QFileInfo::exists(m_wal)),
      m_shmExisted(QFileInfo::exists(m_shm))
{
}

void SidecarFiles::removeCreatedSince() const
{
    // A -wal that holds frames is never ours to delete: only an empty one created by the check.
    if (!m_walExisted && QFileInfo::exists(m_wal) && QFileInfo(m_wal).size() == 0)
        QFile::remove(m_wal);
    if (!m_shmExisted && !QFileInfo::exists(m_wal))
        QFile::remove(m_shm);
}

} // namespace sy::storage
