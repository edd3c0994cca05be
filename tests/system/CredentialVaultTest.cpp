// Provider credentials in a vault (the OS keychain in production; a fake here): the stored
// configuration document holds references instead of the secrets the vault took, a restart loads
// them back, edits move new credentials into the vault and drop removed ones, and a vault that
// refuses (or is absent) leaves the credentials in the database file as before.
#include "StoredAdminFixture.h"

#include "service/CredentialVaulting.h"

#include <QFile>
#include <QHash>

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;

constexpr char kVaultCanary[] = "sk-vault-canary-90c1";
constexpr char kVaultCanary2[] = "sk-vault-canary-second-77ab";

class FakeVault final : public storage::CredentialVault {
public:
    QString where() const override { return QStringLiteral("fake vault"); }
    bool write(const QString &name, const QByteArray &secret) override
    {
        ++writes;
        if (refuse)
            return false;
        entries.insert(name, secret);
        return true;
    }
    std::optional<QByteArray> read(const QString &name) override
    {
        if (refuse || !entries.contains(name))
            return std::nullopt;
        return entries.value(name);
    }
    bool remove(const QString &name) override
    {
        entries.remove(name);
        return true;
    }
    bool holds(const QByteArray &secret) const
    {
        return std::find(entries.begin(), entries.end(), secret) != entries.end();
    }

    QHash<QString, QByteArray> entries;
    bool refuse = false;
    int writes = 0;
};

QByteArray fileBytes(const QString &path)
{
    QByteArray bytes;
    for (const QString &suffix : {QString(), QStringLiteral("-wal")}) {
        QFile file(path + suffix);
        if (file.open(QIODevice::ReadOnly))
            bytes += file.readAll();
    }
    return bytes;
}

class CredentialVaultStoreTest : public ::testing::Test {
protected:
    std::unique_ptr<storage::SqliteStore> openStore()
    {
        auto opened = storage::SqliteStore::open(dir.filePath(QStringLiteral("switchyard.db")));
        if (auto *refusal = std::get_if<QString>(&opened)) {
            ADD_FAILURE() << refusal->toStdString();
            return nullptr;
        }
        return std::move(std::get<std::unique_ptr<storage::SqliteStore>>(opened));
    }
    static config::Config seed(const QStringList &credentials)
    {
        config::Config c;
        config::Channel channel;
        channel.id = QStringLiteral("alpha");
        channel.provider = QStringLiteral("alpha");
        channel.baseUrl = QStringLiteral("http://127.0.0.1:9/v1");
        channel.credentials = credentials;
        channel.models = {config::ChannelModel{QStringLiteral("m"), QStringLiteral("m"), {}}};
        c.channels.push_back(channel);
        c.models.push_back(config::Model{QStringLiteral("m")});
        return c;
    }
    static config::Config chosen(std::variant<config::Config, QString> result)
    {
        if (auto *error = std::get_if<QString>(&result)) {
            ADD_FAILURE() << error->toStdString();
            return {};
        }
        return std::get<config::Config>(std::move(result));
    }
    QString path() const { return dir.filePath(QStringLiteral("switchyard.db")); }

    QTemporaryDir dir;
    FakeVault vault;
};

TEST_F(CredentialVaultStoreTest, StoredDocumentHoldsReferencesAndARestartLoadsTheSecretsBack)
{
    {
        auto store = openStore();
        ASSERT_TRUE(store);
        const config::Config config = chosen(service::configurationFromStore(*store, seed({kVaultCanary, "plain-2"}),
                                                                             nullptr, &vault));
        ASSERT_EQ(config.channels.size(), 1u);
        EXPECT_EQ(config.channels[0].credentials, (QStringList{kVaultCanary, "plain-2"}));
        const QByteArray document = store->loadConfig().value_or(QByteArray());
        EXPECT_FALSE(document.contains(kVaultCanary)) << document.constData();
        EXPECT_FALSE(document.contains("plain-2")) << document.constData();
        EXPECT_EQ(document.count(service::kVaultReferencePrefix), 2) << document.constData();
        EXPECT_TRUE(vault.holds(kVaultCanary));
        EXPECT_EQ(vault.entries.size(), 2);
    }
    EXPECT_FALSE(fileBytes(path()).contains(kVaultCanary));

    // Restart: the stored configuration wins over the seed, and its references resolve.
    auto store = openStore();
    ASSERT_TRUE(store);
    bool fromStore = false;
    const config::Config again = chosen(service::configurationFromStore(*store, seed({}), &fromStore, &vault));
    EXPECT_TRUE(fromStore);
    ASSERT_EQ(again.channels.size(), 1u);
    EXPECT_EQ(again.channels[0].credentials, (QStringList{kVaultCanary, "plain-2"}));
}

TEST_F(CredentialVaultStoreTest, ARefusingVaultLeavesTheCredentialsInTheDatabase)
{
    vault.refuse = true;
    auto store = openStore();
    ASSERT_TRUE(store);
    const config::Config config = chosen(service::configurationFromStore(*store, seed({kVaultCanary}), nullptr, &vault));
    EXPECT_EQ(config.channels[0].credentials, QStringList{kVaultCanary});
    EXPECT_GE(vault.writes, 1);
    const QByteArray document = store->loadConfig().value_or(QByteArray());
    EXPECT_TRUE(document.contains(kVaultCanary));
    EXPECT_FALSE(document.contains(service::kVaultReferencePrefix));
}

TEST_F(CredentialVaultStoreTest, WithoutAVaultNothingChanges)
{
    auto store = openStore();
    ASSERT_TRUE(store);
    chosen(service::configurationFromStore(*store, seed({kVaultCanary}), nullptr, nullptr));
    EXPECT_TRUE(store->loadConfig().value_or(QByteArray()).contains(kVaultCanary));
}

TEST_F(CredentialVaultStoreTest, PlainCredentialsOfAnEarlierRunMoveIntoTheVault)
{
    {
        auto store = openStore();
        ASSERT_TRUE(store);
        chosen(service::configurationFromStore(*store, seed({kVaultCanary}), nullptr, nullptr));
    }
    auto store = openStore();
    ASSERT_TRUE(store);
    const config::Config config = chosen(service::configurationFromStore(*store, seed({}), nullptr, &vault));
    EXPECT_EQ(config.channels[0].credentials, QStringList{kVaultCanary});
    EXPECT_TRUE(vault.holds(kVaultCanary));
    EXPECT_FALSE(store->loadConfig().value_or(QByteArray()).contains(kVaultCanary));
    // Nor anywhere in the files: the replaced document is overwritten, not only unlinked, and
    // the WAL that held it is emptied.
    EXPECT_FALSE(fileBytes(path()).contains(kVaultCanary));
}

TEST_F(CredentialVaultStoreTest, AnUnavailableVaultLeavesReferencesUnresolvedButStarts)
{
    {
        auto store = openStore();
        ASSERT_TRUE(store);
        chosen(service::configurationFromStore(*store, seed({kVaultCanary}), nullptr, &vault));
    }
    auto store = openStore();
    ASSERT_TRUE(store);
    const config::Config config = chosen(service::configurationFromStore(*store, seed({}), nullptr, nullptr));
    ASSERT_EQ(config.channels[0].credentials.size(), 1);
    EXPECT_TRUE(config.channels[0].credentials[0].startsWith(service::kVaultReferencePrefix));
    // Still the references: the document was not rewritten without the vault.
    EXPECT_FALSE(store->loadConfig().value_or(QByteArray()).contains(kVaultCanary));
}

// Through Persistence and the admin API: an edited credential goes into the vault, the one it
// replaced leaves it, and the stored document never holds either.
class CredentialVaultEditTest : public StoredAdminFixture {};

TEST_F(CredentialVaultEditTest, EditsKeepSecretsOutOfTheDatabase)
{
    FakeVault fake;
    vault = &fake;
    config::Config config = adminConfig();
    channel(config, "alpha").credentials = {kVaultCanary};
    startStoredGateway(std::move(config));
    // A first edit stores the configuration: the credential goes into the vault.
    ASSERT_EQ(admin("PATCH", "/admin/channels/alpha", QJsonObject{{"max_concurrent", 4}})->status(), 200);
    persistence->flush();
    ASSERT_TRUE(fake.holds(kVaultCanary));
    EXPECT_FALSE(store->loadConfig().value_or(QByteArray()).contains(kVaultCanary));

    const auto edited = admin("PATCH", "/admin/channels/alpha", QJsonObject{{"credentials", QJsonArray{kVaultCanary2}}});
    ASSERT_EQ(edited->status(), 200) << edited->body().constData();
    persistence->flush();
    const QByteArray document = store->loadConfig().value_or(QByteArray());
    EXPECT_FALSE(document.contains(kVaultCanary2)) << document.constData();
    EXPECT_FALSE(document.contains(kVaultCanary)) << document.constData();
    EXPECT_TRUE(fake.holds(kVaultCanary2));
    EXPECT_FALSE(fake.holds(kVaultCanary)) << "the replaced credential stayed in the vault";
    EXPECT_FALSE(databaseBytes().contains(kVaultCanary2));
    // The gateway itself uses the new credential.
    EXPECT_EQ(gateway->workspace()->config().channels[0].credentials, QStringList{kVaultCanary2});
    EXPECT_EQ(chat(chatBody(integration::kModelA))->status(), 200);
}

} // namespace
} // namespace sy::system_test
