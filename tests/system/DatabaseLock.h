#pragma once
// DatabaseLock: another program's hold on a SQLite file's write lock, for tests of what the
// gateway does while its database is locked. A second connection of the test process, in a
// transaction (BEGIN IMMEDIATE: in WAL mode readers go on, every other writer waits) from lock()
// until release() or its destruction. A failing step is reported as a test failure.
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <gtest/gtest.h>

#include <atomic>
#include <utility>

namespace sy::system_test {

class DatabaseLock {
public:
    explicit DatabaseLock(const QString &path) : m_name(QStringLiteral("database-lock-%1").arg(counter()++))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        if (!db.open())
            ADD_FAILURE() << "lock connection: " << db.lastError().text().toStdString();
    }
    ~DatabaseLock()
    {
        release();
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    DatabaseLock(const DatabaseLock &) = delete;
    DatabaseLock &operator=(const DatabaseLock &) = delete;

    // Takes the write lock; true once held.
    bool lock() { return m_held = exec("BEGIN IMMEDIATE"); }
    // Lets it go (a no-op when not held); true unless the rollback failed.
    bool release() { return !std::exchange(m_held, false) || exec("ROLLBACK"); }
    bool held() const { return m_held; }

private:
    bool exec(const char *sql)
    {
        QSqlQuery query(QSqlDatabase::database(m_name, false));
        if (query.exec(QString::fromLatin1(sql)))
            return true;
        ADD_FAILURE() << sql << ": " << query.lastError().text().toStdString();
        return false;
    }
    static std::atomic<int> &counter()
    {
        static std::atomic<int> value{0};
        return value;
    }

    const QString m_name;
    bool m_held = false;
};

} // namespace sy::system_test
