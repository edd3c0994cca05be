#pragma once
// StoredAdminFixture: the admin workspace (AdminFixture) with a real SQLite store in a temporary
// directory and Persistence wired to the gateway, as the programs do. The store commits every
// 20 ms, so what the gateway persists reaches the file quickly; retention runs when its bounds
// change (and otherwise once an hour).
// Thread: the test's thread.
#include "AdminFixture.h"
#include "service/Persistence.h"
#include "storage/SqliteStore.h"

#include <QTemporaryDir>

namespace sy::system_test {

class StoredAdminFixture : public AdminFixture {
protected:
    void TearDown() override;

    // Starts the gateway with `config`, then opens the store and attaches Persistence.
    void startStoredGateway(config::Config config);
    // The same with the store's own options (flush and retention intervals included).
    void startStoredGateway(config::Config config, const storage::SqliteStoreOptions &options);

    QString databasePath() const { return m_dir.filePath(QStringLiteral("switchyard.db")); }
    // The database file's bytes, main file and write-ahead log together (after a flush).
    QByteArray databaseBytes();
    // Ids listed by GET /admin/requests (memory and database), newest first.
    QStringList listedIds();

    std::unique_ptr<storage::SqliteStore> store;
    std::unique_ptr<service::Persistence> persistence;
    storage::CredentialVault *vault = nullptr;   // given to Persistence when set before the start

private:
    QTemporaryDir m_dir;
};

} // namespace sy::system_test
