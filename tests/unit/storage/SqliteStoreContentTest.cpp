// Message contents of a request (schema version 2): stored in their own column, returned by
// request(id) only, NULL when not logged; a version 1 file gains the column and keeps its rows.
#include "StorageTestSupport.h"

#include "storage/Schema.h"

#include <QTemporaryDir>

namespace sy::storage::test {
namespace {

TEST(SqliteStoreContentTest, ContentComesBackByIdButNotInListings)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto store = openStore(path);
    ASSERT_TRUE(store);
    StoredRequest with = request("with", baseTime());
    with.content = R"({"request":"[{\"role\":\"user\"}]","response":"hi"})";
    store->appendRequest(with);
    store->appendRequest(request("without", baseTime().addSecs(1)));

    const auto byId = store->request("with");
    ASSERT_TRUE(byId);
    EXPECT_EQ(byId->content, with.content);
    EXPECT_EQ(*byId, with);
    const auto plain = store->request("without");
    ASSERT_TRUE(plain);
    EXPECT_TRUE(plain->content.isEmpty());
    for (const StoredRequest &listed : store->queryRequests({}))
        EXPECT_TRUE(listed.content.isEmpty()) << listed.id.constData();

    RawDatabase raw(path);
    EXPECT_EQ(raw.scalar(QStringLiteral("SELECT count(*) FROM request_log WHERE content IS NULL")), QStringLiteral("1"));
}

TEST(SqliteStoreContentTest, VersionOneFileGainsTheColumn)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("v1.db"));
    {
        // Exactly what version 1 created, with one logged request.
        RawDatabase raw(path, false);
        QSqlDatabase db = raw.database();
        ASSERT_FALSE(migrate(db, {schemaMigrations().front()}));
        raw.exec(QStringLiteral("INSERT INTO request_log VALUES('old', '2025-01-01T12:00:00.000Z', 'k', 'm', 200, 0,"
                                " '{\"id\":\"old\"}')"));
        EXPECT_EQ(raw.scalar(QStringLiteral("SELECT value FROM meta WHERE key = 'schema_version'")), QStringLiteral("1"));
    }
    auto store = openStore(path);
    ASSERT_TRUE(store);
    EXPECT_EQ(store->meta(QString::fromLatin1(kMetaSchemaVersion)), QString::number(kSchemaVersion));
    const auto old = store->request("old");
    ASSERT_TRUE(old);
    EXPECT_EQ(old->json, QByteArray(R"({"id":"old"})"));
    EXPECT_TRUE(old->content.isEmpty());
    StoredRequest fresh = request("fresh", baseTime());
    fresh.content = R"({"response":"ok"})";
    store->appendRequest(fresh);
    EXPECT_EQ(store->request("fresh")->content, fresh.content);
}

} // namespace
} // namespace sy::storage::test
