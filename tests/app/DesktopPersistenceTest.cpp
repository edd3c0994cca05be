// The desktop app keeps its workspace: GatewayWorker (run here on the test's thread) opens a
// database, an edit made through the in-process admin API survives a stop and a start on the same
// file — for a configuration file and for the demo workspace, whose channels follow the
// simulator to its new port — and --reset-demo starts the demo over.
#include "GatewayWorker.h"
#include "support/Waits.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <gmock/gmock.h>

using namespace std::chrono_literals;
using sy::app::GatewayStartOptions;
using sy::app::GatewayWorker;

namespace {

struct AdminAnswer {
    int status = 0;
    QJsonObject json;
};

class DesktopPersistenceTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(dir.isValid()); }
    void TearDown() override { stop(); }

    // Starts a worker; false (after reporting why) when it did not start.
    bool start(const GatewayStartOptions &options)
    {
        stop();
        worker = std::make_unique<GatewayWorker>();
        QSignalSpy started(worker.get(), &GatewayWorker::started);
        QSignalSpy failed(worker.get(), &GatewayWorker::failed);
        worker->start(options);
        if (started.count() == 1)
            return true;
        ADD_FAILURE() << "the gateway did not start: "
                      << (failed.isEmpty() ? std::string("no signal") : failed.first().first().toString().toStdString());
        return false;
    }

    void stop()
    {
        if (worker)
            worker->stop();
        worker.reset();
    }

    AdminAnswer admin(const char *method, const QString &target, const QJsonObject &body = {})
    {
        QSignalSpy replied(worker.get(), &GatewayWorker::adminReplied);
        const QByteArray bytes = body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact);
        worker->adminCall(++tag, method, target.toUtf8(), bytes);
        EXPECT_TRUE(replied.count() == 1 || replied.wait(5000));
        if (replied.isEmpty())
            return {};
        return {replied.first().at(1).toInt(), QJsonDocument::fromJson(replied.first().at(2).toByteArray()).object()};
    }

    GatewayStartOptions demo() const
    {
        GatewayStartOptions options;
        options.port = 0;
        options.databasePath = dir.filePath(QStringLiteral("demo.db"));
        return options;
    }

    QTemporaryDir dir;
    std::unique_ptr<GatewayWorker> worker;
    quint64 tag = 0;
};

TEST_F(DesktopPersistenceTest, ConfigurationFileEditSurvivesARestart)
{
    GatewayStartOptions options;
    options.configPath = dir.filePath(QStringLiteral("switchyard.yaml"));
    options.databasePath = dir.filePath(QStringLiteral("switchyard.db"));
    options.port = 0;
    QFile file(options.configPath);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("listen: 127.0.0.1:0\ncurrency: USD\nkeys:\n  - name: first\n    secret: sk-test-first\n");
    file.close();

    ASSERT_TRUE(start(options));
    EXPECT_EQ(admin("GET", QStringLiteral("/admin/keys/ide")).status, 404);
    const AdminAnswer created = admin("POST", QStringLiteral("/admin/keys"), {{"name", "ide"}, {"rpm", 42}});
    ASSERT_EQ(created.status, 201) << QJsonDocument(created.json).toJson().constData();
    stop();

    ASSERT_TRUE(start(options));
    const AdminAnswer found = admin("GET", QStringLiteral("/admin/keys/ide"));
    ASSERT_EQ(found.status, 200);
    EXPECT_EQ(found.json.value("rpm").toInt(), 42);
    EXPECT_EQ(admin("GET", QStringLiteral("/admin/keys/first")).status, 200);
}

TEST_F(DesktopPersistenceTest, DemoEditsSurviveARestartOnTheNewSimulator)
{
    ASSERT_TRUE(start(demo()));
    const QString firstSimulator = worker->simulatorUrl();
    ASSERT_FALSE(firstSimulator.isEmpty());
    const QJsonObject channel{
        {"id", "my-deepseek"}, {"provider", "mine"}, {"base_url", firstSimulator + "/deepseek/v1"},
        {"credentials", QJsonArray{"sim-demo-deepseek"}},
        {"models", QJsonArray{QJsonObject{{"id", "deepseek/deepseek-v4-flash"}, {"upstream", "deepseek-chat"},
                                          {"price", QJsonObject{{"prompt", 0.1}, {"completion", 0.2}}}}}}};
    const AdminAnswer created = admin("POST", QStringLiteral("/admin/channels"), channel);
    ASSERT_EQ(created.status, 201) << QJsonDocument(created.json).toJson().constData();
    ASSERT_EQ(admin("POST", QStringLiteral("/admin/keys"), {{"name", "laptop"}}).status, 201);
    stop();

    ASSERT_TRUE(start(demo()));
    const QString simulator = worker->simulatorUrl();
    EXPECT_EQ(admin("GET", QStringLiteral("/admin/keys/laptop")).status, 200);
    const AdminAnswer mine = admin("GET", QStringLiteral("/admin/channels/my-deepseek"));
    ASSERT_EQ(mine.status, 200);
    EXPECT_EQ(mine.json.value("base_url").toString(), simulator + "/deepseek/v1");
    EXPECT_EQ(admin("GET", QStringLiteral("/admin/channels/cloudru")).json.value("base_url").toString(),
              simulator + "/cloudru/v1");
}

TEST_F(DesktopPersistenceTest, ResetDemoStartsOver)
{
    ASSERT_TRUE(start(demo()));
    ASSERT_EQ(admin("POST", QStringLiteral("/admin/keys"), {{"name", "laptop"}}).status, 201);
    stop();

    GatewayStartOptions reset = demo();
    reset.resetDemo = true;
    ASSERT_TRUE(start(reset));
    EXPECT_EQ(admin("GET", QStringLiteral("/admin/keys/laptop")).status, 404);
    EXPECT_EQ(admin("GET", QStringLiteral("/admin/channels/cloudru")).status, 200);
}

} // namespace
