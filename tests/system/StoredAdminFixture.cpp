#include "StoredAdminFixture.h"

#include <QFile>

namespace sy::system_test {

using namespace std::chrono_literals;

void StoredAdminFixture::startStoredGateway(config::Config config)
{
    storage::SqliteStoreOptions options;
    options.flushInterval = 20ms;
    options.retentionInterval = 1h;
    startStoredGateway(std::move(config), options);
}

void StoredAdminFixture::startStoredGateway(config::Config config, const storage::SqliteStoreOptions &options)
{
    startGateway(std::move(config));
    ASSERT_TRUE(gateway);
    auto opened = storage::SqliteStore::open(databasePath(), options);
    if (auto *refusal = std::get_if<QString>(&opened))
        FAIL() << "store refused: " << refusal->toStdString();
    store = std::move(std::get<std::unique_ptr<storage::SqliteStore>>(opened));
    persistence = std::make_unique<service::Persistence>(*gateway, *store, vault);
    persistence->restoreLedger();
}

void StoredAdminFixture::TearDown()
{
    if (gateway)
        gateway->setStore(nullptr);
    persistence.reset();
    store.reset();
    AdminFixture::TearDown();
}

QByteArray StoredAdminFixture::databaseBytes()
{
    if (store)
        store->flush();
    QByteArray bytes;
    for (const QString &suffix : {QString(), QStringLiteral("-wal")}) {
        QFile file(databasePath() + suffix);
        if (file.open(QIODevice::ReadOnly))
            bytes += file.readAll();
    }
    return bytes;
}

QStringList StoredAdminFixture::listedIds()
{
    QStringList ids;
    for (const QJsonValue &record : adminList("/admin/requests?limit=1000"))
        ids << record.toObject().value("id").toString();
    return ids;
}

} // namespace sy::system_test
