#pragma once
// DatabaseLock: another program's hold on a SQLite file's write lock, for tests of what the
// gateway does while its database is locked. A second connection of the test process, in a
// transaction started with BEGIN IMMEDIATE from lock() until release() (or its destruction).
#include <QSqlDatabase>
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
        EXPECT_TRUE(db.open());
    }
    ~DatabaseLock()
    {
        release();
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    DatabaseLock(const DatabaseLock &) = delete;
    DatabaseLock &operator=(const DatabaseLock &) = delete;

    bool lock() { return m_held = exec(QStringLiteral("BEGIN IMMEDIATE")); }
    bool release() { return !std::exchange(m_held, false) || exec(QStringLiteral("ROLLBACK")); }

private:
    bool exec(const QString &sql) { return QSqlQuery(QSqlDatabase::database(m_name, false)).exec(sql); }
    static std::atomic<int> &counter()
    {
        static std::atomic<int> value{0};
        return value;
    }

    const QString m_name;
    bool m_held = false;
};

} // namespace sy::system_test
