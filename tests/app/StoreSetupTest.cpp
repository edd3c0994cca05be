// StoreSetup, the shared "open the database, choose the configuration, attach persistence" of
// both programs: the demo's channels follow the simulator to a new address (and only those),
// and databases it cannot use are refused with a message that names the file.
#include "service/StoreSetup.h"

#include "config/ConfigLoader.h"
#include "service/GatewayService.h"

#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <gmock/gmock.h>

using namespace sy;
using service::StoreChoice;
using service::StoreSetup;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

config::Config configWith(const QString &simulator)
{
    const QByteArray yaml = QStringLiteral(R"(listen: 127.0.0.1:0
channels:
  - id: sim
    provider: sim
    base_url: %1/deepseek/v1
    credentials: [c]
    models: [{id: m, upstream: m, price: {prompt: 1, completion: 1}}]
  - id: lookalike
    provider: other
    base_url: %2/v1
    credentials: [c]
    models: [{id: m, upstream: m, price: {prompt: 1, completion: 1}}]
  - id: real
    provider: real
    base_url: https://api.example.com/v1
    credentials: [c]
    models: [{id: m, upstream: m, price: {prompt: 1, completion: 1}}]
)").arg(simulator, simulator + QLatin1Char('0')).toUtf8();
    config::LoadResult loaded = config::loadConfigText(yaml, QStringLiteral("test.yaml"), QProcessEnvironment());
    EXPECT_TRUE(loaded.config.has_value()) << (loaded.errors.empty() ? "" : loaded.errors.front().toString().toStdString());
    return loaded.config ? *loaded.config : config::Config{};
}

QString baseUrlOf(const config::Config &config, const QString &id)
{
    for (const config::Channel &channel : config.channels)
        if (channel.id == id)
            return channel.baseUrl;
    return {};
}

std::unique_ptr<StoreSetup> openOk(const StoreChoice &choice, config::Config seed)
{
    auto opened = StoreSetup::open(choice, std::move(seed));
    if (auto *message = std::get_if<QString>(&opened)) {
        ADD_FAILURE() << message->toStdString();
        return nullptr;
    }
    return std::get<std::unique_ptr<StoreSetup>>(std::move(opened));
}

QString refusal(const StoreChoice &choice)
{
    auto opened = StoreSetup::open(choice, config::Config{});
    const QString *message = std::get_if<QString>(&opened);
    return message ? *message : QString();
}

} // namespace

TEST(StoreSetupTest, RebaseMovesOnlyChannelsOnThePreviousSimulator)
{
    config::Config config = configWith(QStringLiteral("http://127.0.0.1:4000"));
    EXPECT_EQ(service::rebaseChannels(config, QStringLiteral("http://127.0.0.1:4000"), QStringLiteral("http://127.0.0.1:5123")), 1);
    EXPECT_EQ(baseUrlOf(config, "sim"), "http://127.0.0.1:5123/deepseek/v1");
    EXPECT_EQ(baseUrlOf(config, "lookalike"), "http://127.0.0.1:40000/v1");
    EXPECT_EQ(baseUrlOf(config, "real"), "https://api.example.com/v1");
    EXPECT_EQ(service::rebaseChannels(config, QString(), QStringLiteral("http://127.0.0.1:1")), 0);
}

TEST(StoreSetupTest, DemoDatabaseFollowsTheSimulatorAcrossStarts)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("demo.db"));
    const QString first = QStringLiteral("http://127.0.0.1:4000");
    const QString second = QStringLiteral("http://127.0.0.1:4555");
    {
        auto setup = openOk({path, first}, configWith(first));
        ASSERT_TRUE(setup);
        EXPECT_FALSE(setup->configFromStore());
        EXPECT_EQ(setup->rebasedChannels(), 0);
        service::GatewayService gateway(setup->takeConfig());
        setup->attach(gateway);
        setup->flush();
    }
    {
        // The seed of this start says :4555 everywhere; the stored configuration wins and is moved.
        config::Config seed = configWith(second);
        seed.channels.pop_back();
        auto setup = openOk({path, second}, seed);
        ASSERT_TRUE(setup);
        EXPECT_TRUE(setup->configFromStore());
        EXPECT_EQ(setup->rebasedChannels(), 1);
        config::Config config = setup->takeConfig();
        EXPECT_EQ(config.channels.size(), 3u) << "the stored configuration, not the seed";
        EXPECT_EQ(baseUrlOf(config, "sim"), second + "/deepseek/v1");
        EXPECT_EQ(baseUrlOf(config, "lookalike"), "http://127.0.0.1:40000/v1");
        service::GatewayService gateway(std::move(config));
        setup->attach(gateway);
        setup->flush();
    }
    {
        // The move was stored: the next start on the same simulator finds nothing to move.
        auto setup = openOk({path, second}, configWith(second));
        ASSERT_TRUE(setup);
        EXPECT_EQ(setup->rebasedChannels(), 0);
        EXPECT_EQ(baseUrlOf(setup->takeConfig(), "sim"), second + "/deepseek/v1");
    }
}

TEST(StoreSetupTest, UnusableDatabasesAreRefusedWithTheFileNamed)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    // A PostgreSQL address is named without its password, with the server's reason.
    const QString unreachable = refusal({QStringLiteral("postgres://u:secret@127.0.0.1:1/db"), {}});
    EXPECT_THAT(unreachable.toStdString(), HasSubstr("cannot connect to PostgreSQL at postgres://u@127.0.0.1:1/db"));
    EXPECT_THAT(unreachable.toStdString(), HasSubstr("Connection refused"));
    EXPECT_THAT(unreachable.toStdString(), Not(HasSubstr("secret")));
    EXPECT_THAT(refusal({QStringLiteral("postgresql://h/db"), {}}).toStdString(), HasSubstr("needs a user and a database name"));

    const QString garbage = dir.filePath(QStringLiteral("notes.db"));
    QFile file(garbage);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(2048, 'n'));
    file.close();
    const QString message = refusal({garbage, {}});
    EXPECT_THAT(message.toStdString(), HasSubstr("Cannot use the database"));
    EXPECT_THAT(message.toStdString(), HasSubstr(garbage.toStdString()));
    EXPECT_THAT(message.toStdString(), HasSubstr("--database FILE"));
}

TEST(StoreSetupTest, RemoveDatabaseFilesDeletesTheCompanions)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("demo.db"));
    for (const QString &name : {path, path + "-wal", path + "-shm"}) {
        QFile f(name);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    }
    EXPECT_TRUE(service::removeDatabaseFiles(path).isEmpty());
    EXPECT_FALSE(QFile::exists(path));
    EXPECT_FALSE(QFile::exists(path + "-wal"));
    EXPECT_FALSE(QFile::exists(path + "-shm"));
    EXPECT_TRUE(service::removeDatabaseFiles(path).isEmpty()) << "nothing to delete is not an error";
}

TEST(StoreSetupTest, CommandLineListenLastsOneRunButAnEditedListenIsStored)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("switchyard.db"));
    auto listenStored = [&path] {
        auto setup = openOk({path, {}}, configWith(QStringLiteral("http://127.0.0.1:4000")));
        const config::Config config = setup ? setup->takeConfig() : config::Config{};
        return QStringLiteral("%1:%2").arg(config.listenHost).arg(config.listenPort);
    };
    {
        auto setup = openOk({path, {}}, configWith(QStringLiteral("http://127.0.0.1:4000")));
        ASSERT_TRUE(setup);
        config::Config config = setup->takeConfig();
        config.listenPort = 18555;                     // --port 18555
        service::GatewayService gateway(config);
        setup->attach(gateway);
        config.settings.maxAttempts = 3;               // an edit made in the dashboard
        gateway.applyConfig(config);
        setup->flush();
    }
    EXPECT_EQ(listenStored(), "127.0.0.1:0") << "the override is not stored with the edit";
    {
        auto setup = openOk({path, {}}, configWith(QStringLiteral("http://127.0.0.1:4000")));
        ASSERT_TRUE(setup);
        config::Config config = setup->takeConfig();
        EXPECT_EQ(config.settings.maxAttempts, 3) << "the edit itself was stored";
        config.listenPort = 18555;
        service::GatewayService gateway(config);
        setup->attach(gateway);
        config.listenPort = 18666;                     // an imported configuration with its own listen
        gateway.applyConfig(config);
        setup->flush();
    }
    EXPECT_EQ(listenStored(), "127.0.0.1:18666");
}
