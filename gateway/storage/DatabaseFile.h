#pragma once
// The database file before SQLite opens it: created owner-only (it may hold credentials), or
// checked to be a SQLite file at all, so that a foreign file is refused without being touched.
// Internal to SqliteStore. Thread: any; no shared state.
#include <QString>

#include <variant>

namespace sy::storage {

struct PreparedFile {
    bool isNew = false;  // no database yet (created now, or an empty file): nothing to validate
};

// Creates `path` with permissions 0600 (and its missing parent directories) when it does not
// exist; an existing file keeps its permissions. Refuses, with a message naming the file and
// leaving it as it was, a path that is not a regular file or a file that does not start with the
// SQLite header.
std::variant<PreparedFile, QString> prepareDatabaseFile(const QString &path);

// Which of the "-wal" and "-shm" files next to a database exist. A read-only SQLite connection
// creates them and leaves them behind; removeCreatedSince() removes the ones it created (an empty
// -wal only) so that a refused file leaves no litter. Call only when no connection is open.
class SidecarFiles {
public:
    explicit SidecarFiles(const QString &databasePath);
    void removeCreatedSince() const;

private:
    QString m_wal;
    QString m_shm;
    bool m_walExisted = false;
    bool m_shmExisted = false;
};

} // namespace sy::storage
