// The demo tells its story for every button of the failure lab: each demo channel, taken down
// (HTTP 503, the lab's default), fails over to another channel of each model it serves, and the
// client gets its answer within 2 s. The real host runs the demo workspace (embedded simulator,
// demo key) on a free port with a temporary database; requests put the downed channel first
// (`provider.order`) so each one is tried and skipped. Bounded waits only.
#include "GatewayHost.h"
#include "support/HttpTestClient.h"
#include "support/Waits.h"

#include <QApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <algorithm>
#include <map>

using namespace std::chrono_literals;
using sy::app::GatewayHost;
using sy::test::waitUntil;

namespace {

struct DemoChannel {
    QString id;
    QString provider;
    QStringList models;
};

// resources/demo/demo.yaml's channels and the models each serves.
const std::vector<DemoChannel> &demoChannels()
{
    static const std::vector<DemoChannel> channels = {
        {"deepseek-main", "deepseek", {"deepseek/deepseek-v4-flash"}},
        {"cloudru", "cloudru", {"deepseek/deepseek-v4-flash", "Qwen/Qwen3.6-35B-A3B"}},
        {"yandex", "yandex", {"Qwen/Qwen3.6-35B-A3B", "yandex/yandexgpt-5-lite"}},
        {"mws", "mws", {"Qwen/Qwen3.6-35B-A3B"}},
        {"anthropic-sim", "anthropic-sim", {"deepseek/deepseek-v4-flash", "yandex/yandexgpt-5-lite"}},
    };
    return channels;
}

void PrintTo(const DemoChannel &channel, std::ostream *out) { *out << channel.id.toStdString(); }

class DemoTakeDownTest : public ::testing::TestWithParam<DemoChannel> {
protected:
    static void SetUpTestSuite()
    {
        ASSERT_TRUE(dir().isValid());
        sy::app::GatewayStartOptions options;
        options.port = 0;
        options.databasePath = dir().filePath(QStringLiteral("demo.db"));
        host().start(options);
        ASSERT_TRUE(waitUntil([] { return host().listening() || !host().error().isEmpty(); }, 20s));
        ASSERT_TRUE(host().listening()) << host().error().toStdString();
        ASSERT_TRUE(waitUntil([] { return !host().channelIds().isEmpty(); }, 10s));
    }
    static void TearDownTestSuite() { delete s_host; s_host = nullptr; delete s_dir; s_dir = nullptr; }

    static GatewayHost &host()
    {
        if (!s_host)
            s_host = new GatewayHost;
        return *s_host;
    }
    static QTemporaryDir &dir()
    {
        if (!s_dir)
            s_dir = new QTemporaryDir;
        return *s_dir;
    }

    void TearDown() override
    {
        host().clearOutages();
        EXPECT_TRUE(waitUntil([] { return host().outages()->rowCount() == 0; }, 5s));
    }

    static GatewayHost *s_host;
    static QTemporaryDir *s_dir;
};

GatewayHost *DemoTakeDownTest::s_host = nullptr;
QTemporaryDir *DemoTakeDownTest::s_dir = nullptr;

TEST(DemoWorkspaceTest, EveryModelIsServedByAtLeastTwoChannels)
{
    std::map<QString, int> channelsOf;
    for (const DemoChannel &c : demoChannels()) {
        for (const QString &m : c.models)
            ++channelsOf[m];
    }
    for (const auto &[model, count] : channelsOf)
        EXPECT_GE(count, 2) << model.toStdString();
}

TEST_P(DemoTakeDownTest, TakingTheChannelDownFailsOverWithinTwoSeconds)
{
    const DemoChannel &down = GetParam();
    // The table above is the demo's: a channel added to demo.yaml must be added here too.
    QStringList listed;
    for (const DemoChannel &c : demoChannels())
        listed << c.id;
    QStringList running = host().channelIds();
    running.sort();
    listed.sort();
    ASSERT_EQ(running, listed);

    host().setOutage(QStringLiteral("channel"), down.id, QStringLiteral("error:503"), 60);
    ASSERT_TRUE(waitUntil([] { return host().outages()->rowCount() == 1; }, 5s));

    const quint16 port = quint16(QUrl(host().url()).port());
    for (const QString &model : down.models) {
        SCOPED_TRACE(model.toStdString());
        const QJsonObject body{
            {"model", model},
            {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hello"}}}},
            {"provider", QJsonObject{{"order", QJsonArray{down.provider}}}},
        };
        sy::test::HttpTestClient client(port);
        client.send("POST", "/v1/chat/completions", QJsonDocument(body).toJson(QJsonDocument::Compact),
                    {{"authorization", "Bearer " + host().demoKey().toUtf8()}});
        // The story's promise: the answer, from another channel, within 2 s.
        ASSERT_TRUE(client.waitForEnd(2s)) << "no answer within 2 s";
        ASSERT_EQ(client.status(), 200) << client.body().constData();
        const QByteArray answered = client.header("x-tsarrouter-provider");
        EXPECT_NE(answered, down.id.toUtf8());
        EXPECT_NE(answered, down.provider.toUtf8());
        const QByteArray trace = client.header("x-tsarrouter-attempts");
        const QJsonArray attempts = QJsonDocument::fromJson(trace).array();
        ASSERT_FALSE(attempts.isEmpty()) << trace.constData();
        EXPECT_EQ(attempts.last().toObject().value("status").toString(), "ok") << trace.constData();
        // Every attempt on the downed channel failed. Its first request tries it first (the
        // failover the lab shows); later ones may skip it while its health has it cooling down.
        bool triedDown = false;
        for (const QJsonValue &a : attempts) {
            const QString provider = a.toObject().value("provider").toString();
            if (provider == down.id || provider == down.provider) {
                triedDown = true;
                EXPECT_EQ(a.toObject().value("status").toString(), "error") << trace.constData();
            }
        }
        if (model == down.models.first())
            EXPECT_TRUE(triedDown) << trace.constData();
    }
}

INSTANTIATE_TEST_SUITE_P(EachDemoChannel, DemoTakeDownTest, ::testing::ValuesIn(demoChannels()),
                         [](const ::testing::TestParamInfo<DemoChannel> &info) {
                             std::string name = info.param.id.toStdString();
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

} // namespace
