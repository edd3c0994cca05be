// Key limits shared by two real switchyard-gateway processes through a real Redis (Debian's
// redis-server, started by the test): RPM and concurrency exact across both, a killed instance's
// slots back after the lease, Redis stopped under load (each `redis_unreachable` setting), a
// Redis password that was not given, and two instances on one port (listen_reuse_port).
#include "GatewayProcess.h"
#include "GatewayClient.h"
#include "SimRule.h"
#include "SimServer.h"
#include "support/RedisServer.h"
#include "support/Waits.h"

#include <QFile>
#include <QSet>
#include <QTcpServer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace sy::system_test {
namespace {

using namespace std::chrono_literals;
using integration::GatewayClient;
using test::RedisServer;

constexpr char kKeySecret[] = "sk-test-shared-limits-5b2e";
constexpr char kModel[] = "acme/chat-a";

struct InstanceSetup {
    int rpm = 0;
    int maxConcurrent = 0;
    int leaseS = 30;
    QString unreachable = QStringLiteral("local");
    QString redisUrl;            // empty: the test's server
    QString instanceName;
    bool reusePort = false;
};

class SharedLimitsTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (!RedisServer::available())
            GTEST_SKIP() << qPrintable(RedisServer::missingMessage());
        ASSERT_TRUE(dir.isValid());
        ASSERT_TRUE(QFile::exists(GatewayProcess::programPath())) << qPrintable(GatewayProcess::programPath());
        sim = std::make_unique<sim::SimServer>(sim::SimOptions{});
        simPort = sim->listen(QHostAddress::LocalHost, 0);
        ASSERT_NE(simPort, 0);
        ASSERT_TRUE(redis.start()) << redis.output().constData();
    }

    void TearDown() override
    {
        for (GatewayProcess *g : {&a, &b})
            if (g->isRunning())
                EXPECT_TRUE(g->terminate()) << "a gateway did not stop on SIGTERM:\n" << g->output().constData();
        redis.stop();
        sim.reset();
    }

    // Every upstream answer takes `latency` (holds the request's concurrency slot that long).
    void setUpstreamLatency(std::chrono::milliseconds latency)
    {
        sim::SimRule rule;
        rule.latency = latency;
        sim->state().rules.upsert(rule);
    }

    QString writeConfig(const QString &name, const InstanceSetup &s)
    {
        QString yaml = QStringLiteral(
            "listen: 127.0.0.1:0\n"
            "redis: %1\n"
            "redis_unreachable: %2\n"
            "redis_lease_s: %3\n"
            "settings: {key_limit_wait_s: 0, retry_pause_ms: 20, first_chunk_timeout_s: 30}\n"
            "channels:\n"
            "  - id: alpha\n"
            "    provider: alpha\n"
            "    base_url: http://127.0.0.1:%4/alpha/v1\n"
            "    credentials: [sk-test-upstream]\n"
            "    timeouts: {connect_s: 2, first_byte_s: 60, idle_s: 60}\n"
            "    models:\n"
            "      - {id: %5, upstream: chat-a-up}\n"
            "keys:\n"
            "  - {name: team, secret: %6, rpm: %7, max_concurrent: %8}\n")
            .arg(s.redisUrl.isEmpty() ? redis.url() : s.redisUrl, s.unreachable).arg(s.leaseS).arg(simPort)
            .arg(QLatin1String(kModel), QLatin1String(kKeySecret)).arg(s.rpm).arg(s.maxConcurrent);
        if (s.reusePort)
            yaml += QStringLiteral("listen_reuse_port: true\n");
        if (!s.instanceName.isEmpty())
            yaml += QStringLiteral("instance_name: %1\n").arg(s.instanceName);
        const QString path = dir.filePath(name + QStringLiteral(".yaml"));
        QFile file(path);
        EXPECT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(yaml.toUtf8());
        return path;
    }

    void start(GatewayProcess &gateway, const QString &name, const InstanceSetup &s)
    {
        ASSERT_TRUE(gateway.start(writeConfig(name, s), dir.filePath(name + QStringLiteral(".db"))))
            << "exit code " << gateway.exitCode() << "; output:\n" << gateway.output().constData();
    }

    static QByteArray chatBody()
    {
        return QByteArray(R"({"model":")") + kModel + R"(","messages":[{"role":"user","content":"Hi"}]})";
    }

    // Sends a chat request to `port` and returns the client without waiting.
    static std::unique_ptr<GatewayClient> send(quint16 port, const QByteArray &path = "/v1/chat/completions",
                                               const QByteArray &body = chatBody())
    {
        auto client = std::make_unique<GatewayClient>(port);
        client->send("POST", path, body,
                     {{"Authorization", QByteArray("Bearer ") + kKeySecret}, {"anthropic-version", "2023-06-01"}});
        return client;
    }

    static std::unique_ptr<GatewayClient> chat(quint16 port)
    {
        auto client = send(port);
        EXPECT_TRUE(client->waitForEnd(15s)) << "a request did not end";
        return client;
    }

    static bool allEnded(const std::vector<std::unique_ptr<GatewayClient>> &clients, std::chrono::milliseconds limit)
    {
        return test::waitUntil([&] {
            for (const auto &c : clients)
                if (!c->isComplete() && !c->isClosed())
                    return false;
            return true;
        }, limit);
    }

    static int count(const std::vector<std::unique_ptr<GatewayClient>> &clients, int status)
    {
        int n = 0;
        for (const auto &c : clients)
            n += c->status() == status ? 1 : 0;
        return n;
    }

    // Members of the key's concurrency slots in Redis (the leases held now).
    int slotsInRedis()
    {
        const QByteArray reply = redis.command({"ZCARD", "switchyard:key:team:slots"});
        return reply.startsWith(':') ? reply.mid(1).trimmed().toInt() : -1;
    }

    QTemporaryDir dir;
    std::unique_ptr<sim::SimServer> sim;
    quint16 simPort = 0;
    RedisServer redis;
    GatewayProcess a;
    GatewayProcess b;
};

TEST_F(SharedLimitsTest, RpmLimitOfTenAcrossTwoInstancesAnswersExactlyTenThen429)
{
    InstanceSetup s;
    s.rpm = 10;
    start(a, "a", s);
    start(b, "b", s);
    std::vector<std::unique_ptr<GatewayClient>> answers;
    for (int i = 0; i < 16; ++i)
        answers.push_back(chat(i % 2 == 0 ? a.port() : b.port()));
    EXPECT_EQ(count(answers, 200), 10);
    EXPECT_EQ(count(answers, 429), 6);
    for (const auto &c : answers) {
        if (c->status() != 429)
            continue;
        EXPECT_EQ(c->json().value("error").toObject().value("type").toString(), "rate_limit_exceeded") << c->body().constData();
        const int retryAfter = c->header("retry-after").toInt();
        EXPECT_GE(retryAfter, 1) << c->header("retry-after").constData();
        EXPECT_LE(retryAfter, 60) << c->header("retry-after").constData();
    }
}

TEST_F(SharedLimitsTest, ConcurrencyLimitHoldsAcrossTwoInstances)
{
    setUpstreamLatency(1500ms);
    InstanceSetup s;
    s.maxConcurrent = 2;
    start(a, "a", s);
    start(b, "b", s);
    std::vector<std::unique_ptr<GatewayClient>> clients;
    for (int i = 0; i < 6; ++i)
        clients.push_back(send(i % 2 == 0 ? a.port() : b.port()));
    ASSERT_TRUE(allEnded(clients, 15s));
    EXPECT_EQ(count(clients, 200), 2);
    EXPECT_EQ(count(clients, 429), 4);
    // Finished requests gave their slots back: the next one is admitted.
    EXPECT_TRUE(test::waitUntil([&] { return slotsInRedis() == 0; }, 5s)) << slotsInRedis();
    EXPECT_EQ(chat(b.port())->status(), 200);
}

TEST_F(SharedLimitsTest, SlotsOfAKilledInstanceComeBackAfterTheLease)
{
    setUpstreamLatency(60s);   // A's requests hold their slots until A dies
    InstanceSetup s;
    s.maxConcurrent = 2;
    s.leaseS = 3;
    start(a, "a", s);
    start(b, "b", s);
    auto first = send(a.port());
    auto second = send(a.port());
    ASSERT_TRUE(test::waitUntil([&] { return slotsInRedis() == 2; }, 5s)) << slotsInRedis();
    a.killHard();
    ASSERT_FALSE(a.isRunning());

    // Right after the crash the slots are still leased to A.
    setUpstreamLatency(0ms);
    EXPECT_EQ(chat(b.port())->status(), 429);
    // Within the lease (3 s) they expire and B admits again. (Asked twice a second: a stream of
    // refused requests would trip the key breaker.)
    int status = 0;
    QByteArray body;
    EXPECT_TRUE(test::waitUntil([&] {
        const auto answer = chat(b.port());
        status = answer->status();
        body = answer->body();
        if (status != 200)
            test::processEventsFor(500ms);
        return status == 200;
    }, 10s)) << "last status " << status << ' ' << body.constData();
    // The expired leases were dropped, and B's own slot was given back.
    EXPECT_TRUE(test::waitUntil([&] { return slotsInRedis() == 0; }, 5s)) << slotsInRedis();
}

TEST_F(SharedLimitsTest, RedisStoppedUnderLoadFailsClosedWith503InEachFormat)
{
    InstanceSetup s;
    s.rpm = 1000;
    s.unreachable = QStringLiteral("fail_closed");
    start(a, "a", s);
    ASSERT_EQ(chat(a.port())->status(), 200);

    setUpstreamLatency(300ms);
    std::vector<std::unique_ptr<GatewayClient>> load;
    for (int i = 0; i < 8; ++i)
        load.push_back(send(a.port()));
    redis.stop();
    for (int i = 0; i < 8; ++i)
        load.push_back(send(a.port()));
    ASSERT_TRUE(allEnded(load, 15s));
    for (const auto &c : load)
        EXPECT_TRUE(c->status() == 200 || c->status() == 503) << c->status() << ' ' << c->body().constData();

    const auto openai = chat(a.port());
    EXPECT_EQ(openai->status(), 503) << openai->body().constData();
    EXPECT_EQ(openai->json().value("error").toObject().value("code").toString(), "limits_unavailable") << openai->body().constData();
    EXPECT_FALSE(openai->header("retry-after").isEmpty());
    auto anthropic = send(a.port(), "/v1/messages",
                          QByteArray(R"({"model":")") + kModel + R"(","max_tokens":16,"messages":[{"role":"user","content":"Hi"}]})");
    ASSERT_TRUE(anthropic->waitForEnd(10s));
    EXPECT_EQ(anthropic->status(), 503) << anthropic->body().constData();
    EXPECT_EQ(anthropic->json().value("type").toString(), "error") << anthropic->body().constData();
    EXPECT_FALSE(anthropic->header("retry-after").isEmpty());
    EXPECT_TRUE(a.isRunning()) << a.output().constData();

    // Redis back on its port: shared limits again, without a restart of the gateway.
    ASSERT_TRUE(redis.start({}, redis.port())) << redis.output().constData();
    int status = 0;
    EXPECT_TRUE(test::waitUntil([&] {
        status = chat(a.port())->status();
        if (status != 200)
            test::processEventsFor(200ms);   // the gateway retries Redis at most every 500 ms
        return status == 200;
    }, 10s)) << "last status " << status << "\n" << a.output().constData();
}

TEST_F(SharedLimitsTest, RedisStoppedUnderLoadFallsBackToPerInstanceLimits)
{
    InstanceSetup s;
    s.rpm = 3;
    s.unreachable = QStringLiteral("local");
    start(a, "a", s);
    start(b, "b", s);
    redis.stop();
    // Each instance now counts on its own: 3 per instance, then 429; never a crash or a 503.
    for (GatewayProcess *g : {&a, &b}) {
        std::vector<std::unique_ptr<GatewayClient>> answers;
        for (int i = 0; i < 4; ++i)
            answers.push_back(chat(g->port()));
        EXPECT_EQ(count(answers, 200), 3);
        EXPECT_EQ(count(answers, 429), 1);
        EXPECT_TRUE(g->isRunning()) << g->output().constData();
    }
}

TEST_F(SharedLimitsTest, RedisThatNeedsAPasswordNotGivenStopsTheStartWithItsReason)
{
    redis.stop();
    ASSERT_TRUE(redis.start("pw-test-31c7")) << redis.output().constData();
    InstanceSetup s;
    s.rpm = 10;
    s.redisUrl = redis.urlWithPassword({});
    ASSERT_TRUE(a.runToExit(writeConfig("a", s), dir.filePath("a.db")));
    EXPECT_EQ(a.exitCode(), 1);
    const QByteArray err = a.standardError();
    EXPECT_TRUE(err.contains("NOAUTH")) << err.constData();
    EXPECT_TRUE(err.contains("needs a password")) << err.constData();

    s.redisUrl = redis.urlWithPassword("not-the-password");
    ASSERT_TRUE(b.runToExit(writeConfig("b", s), dir.filePath("b.db")));
    EXPECT_EQ(b.exitCode(), 1);
    EXPECT_TRUE(b.standardError().contains("WRONGPASS")) << b.standardError().constData();
    EXPECT_FALSE(b.standardError().contains("not-the-password")) << b.standardError().constData();
}

TEST_F(SharedLimitsTest, TwoInstancesAnswerOnOnePortWithReusePort)
{
    // A free port, then both instances on it.
    quint16 port = 0;
    {
        QTcpServer probe;
        ASSERT_TRUE(probe.listen(QHostAddress::LocalHost, 0));
        port = probe.serverPort();
    }
    const QString listen = QStringLiteral("127.0.0.1:%1").arg(port);
    InstanceSetup s;
    s.reusePort = true;
    s.instanceName = QStringLiteral("gw-a");
    a.setListen(listen);
    start(a, "a", s);
    s.instanceName = QStringLiteral("gw-b");
    b.setListen(listen);
    start(b, "b", s);
    ASSERT_EQ(a.port(), port);
    ASSERT_EQ(b.port(), port);

    // The kernel spreads new connections between both: each answers some of them.
    QSet<QByteArray> seen;
    test::waitUntil([&] {
        GatewayClient scrape(port);
        scrape.send("GET", "/metrics");
        if (scrape.waitForEnd() && scrape.status() == 200)
            for (const QByteArray name : {QByteArray("gw-a"), QByteArray("gw-b")})
                if (scrape.body().contains("instance=\"" + name + '"'))
                    seen.insert(name);
        return seen.size() == 2;
    }, 10s);
    EXPECT_EQ(seen.size(), 2);
    EXPECT_EQ(chat(port)->status(), 200);
}

} // namespace
} // namespace sy::system_test
