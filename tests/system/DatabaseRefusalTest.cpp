// A database the program cannot trust is refused: it exits non-zero with a clear message on
// stderr, and the file's bytes are left exactly as they were.
#include "ProcessFixture.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlQuery>

namespace sy::system_test {
namespace {

class DatabaseRefusalTest : public ProcessFixture {
protected:
    void SetUp() override
    {
        ProcessFixture::SetUp();
        writeConfig(10);
        ASSERT_TRUE(QDir().mkpath(QFileInfo(databasePath()).absolutePath()));
    }

    void writeDatabase(const QByteArray &bytes)
    {
        QFile file(databasePath());
        ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(bytes);
    }

    // Runs the program on the database and expects a refusal whose message contains `reason`.
    void expectRefused(const QByteArray &reason)
    {
        const QByteArray before = databaseBytes();
        ASSERT_FALSE(before.isEmpty());
        ASSERT_TRUE(gateway.runToExit(configPath(), databasePath())) << "the gateway did not exit";
        EXPECT_EQ(gateway.exitStatus(), QProcess::NormalExit);
        EXPECT_NE(gateway.exitCode(), 0);
        EXPECT_TRUE(gateway.standardError().contains(reason)) << gateway.standardError().constData();
        EXPECT_FALSE(gateway.standardOutput().contains("listening on")) << gateway.standardOutput().constData();
        EXPECT_EQ(databaseBytes(), before) << "the refused database was modified";
    }

    // A real database made by the program itself (start, clean stop).
    void makeDatabase()
    {
        startGateway();
        ASSERT_EQ(chat(chatBody())->status(), 200);
        ASSERT_TRUE(gateway.terminate());
        ASSERT_EQ(gateway.exitCode(), 0) << gateway.output().constData();
    }
};

TEST_F(DatabaseRefusalTest, GarbageFileIsRefusedAndLeftUnchanged)
{
    QByteArray garbage;
    for (int i = 0; i < 512; ++i)
        garbage += QByteArray::number(i * 7919, 16) + " garbage ";
    writeDatabase(garbage);
    expectRefused("not a SQLite database");
}

TEST_F(DatabaseRefusalTest, CorruptPagesAfterAValidHeaderAreRefusedAndLeftUnchanged)
{
    makeDatabase();
    QByteArray bytes = databaseBytes();
    ASSERT_GT(bytes.size(), 4096);
    for (qsizetype i = 4096; i < bytes.size(); ++i)
        bytes[i] = char((i * 131) & 0xff);
    writeDatabase(bytes);
    expectRefused("switchyard-gateway: ");
}

TEST_F(DatabaseRefusalTest, NewerSchemaVersionIsRefusedAndLeftUnchanged)
{
    makeDatabase();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("schema-edit"));
        db.setDatabaseName(databasePath());
        ASSERT_TRUE(db.open());
        QSqlQuery query(db);
        ASSERT_TRUE(query.exec(QStringLiteral("UPDATE meta SET value = '999' WHERE key = 'schema_version'")));
        EXPECT_EQ(query.numRowsAffected(), 1);
        query.finish();
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("schema-edit"));
    expectRefused("schema version 999");
}

} // namespace
} // namespace sy::system_test
