// Several switchyard-gateway programs on one PostgreSQL database (tests/support/PostgresServer)
// against one simulator in the test process: money is exact across them, an edit made through
// one reaches the other without a restart, a gateway killed with SIGKILL gives its reservations
// back after the lease, a restarted PostgreSQL is survived with clean 503s (the key breaker left
// alone, a reservation held across the restart charged once), and a database that cannot be used
// fails the start with the server's reason.
#include "GatewayClient.h"
#include "GatewayProcess.h"
#include "PostgresTestSupport.h"
#include "SimRule.h"
#include "SimServer.h"
#include "support/PostgresServer.h"
#include "support/Waits.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

namespace sy::system_test {
namespace {

using integration::GatewayClient;
using sy::test::PostgresServer;
using sy::test::waitUntil;

constexpr char kAdminToken[] = "sya-shared-admin-token";
constexpr char kKeySecret[] = "sk-test-shared-key-01";
constexpr char kModel[] = "acme/chat-a";
// max_tokens 2 at 1 per completion token, prompts free: every request is estimated at exactly what
// it is charged (2.0), so the balance admits the same number of requests however they interleave.
constexpr double kChargePerRequest = 2.0;
// Refused requests during an outage: more than the key breaker's minimum (100 in 60 s).
constexpr int kOutageBurst = 110;

class SharedPostgresTest : public storage::test::PostgresDatabaseTest {
protected:
    void SetUp() override
    {
        PostgresDatabaseTest::SetUp();  // skips without a server; else one database per test
        if (IsSkipped() || HasFatalFailure())
            return;
        ASSERT_TRUE(QFile::exists(GatewayProcess::programPath())) << qPrintable(GatewayProcess::programPath());
        ASSERT_TRUE(m_dir.isValid());
        sim = std::make_unique<sim::SimServer>(sim::SimOptions{});
        simPort = sim->listen(QHostAddress::LocalHost, 0);
        ASSERT_NE(simPort, 0);
    }
    void TearDown() override
    {
        if (s_server && !s_server->isRunning())
            s_server->start();  // a test that stopped it must not take the next ones down
        for (GatewayProcess *gateway : {&a, &b}) {
            if (gateway->isRunning()) {
                EXPECT_TRUE(gateway->terminate()) << gateway->output().constData();
            }
        }
        sim.reset();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }

    void addRule(const QByteArray &json)
    {
        const sim::RuleParse parsed = sim::parseRule(QJsonDocument::fromJson(json).object());
        ASSERT_TRUE(parsed.rule) << qPrintable(parsed.error);
        sim->state().rules.upsert(*parsed.rule);
    }
    QString url(int leaseSeconds = 30) const
    {
        return s_server->url(m_database) + QStringLiteral("?reservation_lease_s=%1").arg(leaseSeconds);
    }
    QString writeConfig(double balance)
    {
        const QString yaml = QStringLiteral(
                                 "listen: 127.0.0.1:0\n"
                                 "admin_token: %1\n"
                                 "balance: %2\n"
                                 "settings: {retry_pause_ms: 20, first_chunk_timeout_s: 5}\n"
                                 "channels:\n"
                                 "  - id: alpha\n"
                                 "    provider: alpha\n"
                                 "    base_url: http://127.0.0.1:%3/alpha/v1\n"
                                 "    credentials: [sk-test-upstream]\n"
                                 "    models:\n"
                                 "      - id: %4\n"
                                 "        upstream: chat-a-up\n"
                                 "        price: {prompt: 0, completion: 1000000}\n"
                                 "keys:\n"
                                 "  - name: main\n"
                                 "    secret: %5\n")
                                 .arg(QLatin1String(kAdminToken))
                                 .arg(balance)
                                 .arg(simPort)
                                 .arg(QLatin1String(kModel), QLatin1String(kKeySecret));
        const QString path = m_dir.filePath(QStringLiteral("gateway.yaml"));
        QFile file(path);
        EXPECT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(yaml.toUtf8());
        return path;
    }
    void startGateway(GatewayProcess &gateway, const QString &config, int leaseSeconds = 30)
    {
        ASSERT_TRUE(gateway.start(config, url(leaseSeconds), std::chrono::seconds(20)))
            << "exit code " << gateway.exitCode() << "; output:\n" << gateway.output().constData();
    }

    static QByteArray chatBody()
    {
        return QByteArray(R"({"model":")") + kModel + R"(","max_tokens":2,"messages":[{"role":"user","content":"hi"}]})";
    }
    static std::unique_ptr<GatewayClient> sendChat(const GatewayProcess &gateway, const QByteArray &secret = kKeySecret)
    {
        auto client = std::make_unique<GatewayClient>(gateway.port());
        client->send("POST", "/v1/chat/completions", chatBody(), {{"Authorization", "Bearer " + secret}});
        return client;
    }
    static std::unique_ptr<GatewayClient> chat(const GatewayProcess &gateway, const QByteArray &secret = kKeySecret)
    {
        auto client = sendChat(gateway, secret);
        EXPECT_TRUE(client->waitForEnd(std::chrono::seconds(10)));
        return client;
    }
    enum class Format { Anthropic, Gemini };
    // A chat in another client format, waited for (bounded).
    static std::unique_ptr<GatewayClient> send(const GatewayProcess &gateway, Format format)
    {
        auto client = std::make_unique<GatewayClient>(gateway.port());
        if (format == Format::Anthropic) {
            client->send("POST", "/v1/messages", chatBody(), {{"x-api-key", kKeySecret}, {"anthropic-version", "2023-06-01"}});
        } else {
            client->send("POST", QByteArray("/v1beta/models/") + kModel + ":generateContent",
                         R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"maxOutputTokens":2}})",
                         {{"x-goog-api-key", kKeySecret}});
        }
        EXPECT_TRUE(client->waitForEnd(std::chrono::seconds(10)));
        return client;
    }
    // After the database came back: asks (one chat at a time, bounded) until one is answered 200.
    // How many were asked, 0 when none was answered within the limit.
    static int servedAfterRestart(const GatewayProcess &gateway)
    {
        int asked = 0;
        bool served = false;
        waitUntil([&] {
            if (!served) {
                ++asked;
                served = chat(gateway)->status() == 200;
            }
            return served;
        }, std::chrono::seconds(10));
        return served ? asked : 0;
    }
    // "charges|distinct request ids" in the shared ledger.
    QString charges() { return sql(QStringLiteral("SELECT count(*) || '|' || count(DISTINCT request_id) FROM ledger WHERE kind = 'charge'")); }
    static std::unique_ptr<GatewayClient> admin(const GatewayProcess &gateway, const QByteArray &method,
                                                const QByteArray &path, const QJsonObject &body = {})
    {
        auto client = std::make_unique<GatewayClient>(gateway.port());
        client->send(method, path, body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact),
                     {{"Authorization", QByteArray("Bearer ") + kAdminToken}});
        EXPECT_TRUE(client->waitForEnd(std::chrono::seconds(10)));
        return client;
    }
    QString sql(const QString &statement) { return s_server->psql(m_database, statement).value_or(QStringLiteral("?")); }
    int liveReservations() { return sql(QStringLiteral("SELECT count(*) FROM reservations WHERE expires_at > now()")).toInt(); }

    QTemporaryDir m_dir;
    std::unique_ptr<sim::SimServer> sim;
    quint16 simPort = 0;
    GatewayProcess a;
    GatewayProcess b;
};

TEST_F(SharedPostgresTest, TwoGatewaysAnswerAndChargeExactlyWhatTheBalanceAdmits)
{
    constexpr int kAdmitted = 37;
    constexpr int kRequests = 200;
    // 73 = 2 × 37 − 1: the 37th request still finds 1 left, the 38th finds −1.
    const QString config = writeConfig(kChargePerRequest * kAdmitted - 1);
    startGateway(a, config);
    startGateway(b, config);
    addRule(R"({"provider":"alpha","latency_ms":50})");  // so that many are in flight at once

    std::vector<std::unique_ptr<GatewayClient>> clients;
    for (int i = 0; i < kRequests; ++i)
        clients.push_back(sendChat(i % 2 ? b : a));
    ASSERT_TRUE(waitUntil([&] {
        return std::all_of(clients.begin(), clients.end(), [](const auto &c) { return c->isComplete() || c->isClosed(); });
    }, std::chrono::seconds(60)));
    int answered = 0, refused = 0;
    for (const auto &client : clients) {
        if (client->status() == 200)
            ++answered;
        else if (client->status() == 402)
            ++refused;
        else
            ADD_FAILURE() << client->status() << ' ' << client->body().constData();
    }
    EXPECT_EQ(answered, kAdmitted);
    EXPECT_EQ(refused, kRequests - kAdmitted);
    // Every answered request charged once, in the one ledger both gateways write.
    EXPECT_EQ(sql(QStringLiteral("SELECT count(*), count(DISTINCT request_id), sum(amount_nanos) FROM ledger WHERE kind = 'charge'")),
              QStringLiteral("%1|%1|%2").arg(kAdmitted).arg(qint64(kAdmitted * kChargePerRequest * 1e9)));
    EXPECT_TRUE(waitUntil([&] { return liveReservations() == 0; }, std::chrono::seconds(5)));
    // Both gateways show the database's balance.
    for (GatewayProcess *gateway : {&a, &b}) {
        EXPECT_TRUE(waitUntil([&] {
            return admin(*gateway, "GET", "/admin/balance")->json().value("balance").toString().toDouble() == -1.0;
        }, std::chrono::seconds(3))) << admin(*gateway, "GET", "/admin/balance")->body().constData();
    }
}

TEST_F(SharedPostgresTest, AKeyCreatedThroughOneGatewayAnswersOnTheOtherWithinTwoSeconds)
{
    const QString config = writeConfig(100);
    startGateway(a, config);
    startGateway(b, config);
    const auto created = admin(a, "POST", "/admin/keys", QJsonObject{{"name", "ci"}});
    ASSERT_EQ(created->status(), 201) << created->body().constData();
    const QByteArray secret = created->json().value("secret").toString().toLatin1();
    ASSERT_FALSE(secret.isEmpty());
    EXPECT_TRUE(waitUntil([&] { return chat(b, secret)->status() == 200; }, std::chrono::seconds(2)))
        << b.output().constData();
    // Applied on B without being stored again: the document was written once, by A.
    EXPECT_EQ(sql(QStringLiteral("SELECT version FROM config")), QStringLiteral("2"));
}

TEST_F(SharedPostgresTest, AGatewayKilledUnderLoadGivesItsReservationsBackAfterTheLease)
{
    // 10 = five requests of 2 in flight on A hold the whole balance.
    const QString config = writeConfig(10);
    constexpr int kLeaseSeconds = 2;
    startGateway(a, config, kLeaseSeconds);
    startGateway(b, config, kLeaseSeconds);
    addRule(R"({"provider":"alpha","latency_ms":60000})");
    std::vector<std::unique_ptr<GatewayClient>> held;
    for (int i = 0; i < 5; ++i)
        held.push_back(sendChat(a));
    ASSERT_TRUE(waitUntil([&] { return liveReservations() == 5; }, std::chrono::seconds(5)));
    a.killHard();
    addRule(R"({"provider":"alpha","latency_ms":0})");

    // B keeps serving; while A's reservations live, they still hold the balance.
    EXPECT_EQ(chat(b)->status(), 402);
    EXPECT_TRUE(waitUntil([&] { return liveReservations() == 0; }, std::chrono::seconds(kLeaseSeconds + 5)));
    const auto served = chat(b);
    EXPECT_EQ(served->status(), 200) << served->body().constData();

    // A restarted sees the same money as B: nothing was charged for the killed requests.
    startGateway(a, config, kLeaseSeconds);
    EXPECT_EQ(sql(QStringLiteral("SELECT count(*) FROM ledger WHERE kind = 'charge'")), QStringLiteral("1"));
    EXPECT_EQ(chat(a)->status(), 200);
    for (GatewayProcess *gateway : {&a, &b})
        EXPECT_TRUE(waitUntil([&] { return admin(*gateway, "GET", "/admin/balance")->json().value("balance").toString().toDouble() == 6.0; },
                              std::chrono::seconds(3)));
}

TEST_F(SharedPostgresTest, ARestartedDatabaseGivesCleanServiceUnavailableAndServiceResumes)
{
    const QString config = writeConfig(100);
    startGateway(a, config);
    ASSERT_EQ(chat(a)->status(), 200);
    ASSERT_TRUE(s_server->stop()) << s_server->error().toStdString();

    // Each client format gets its own 503 shape, with retry-after.
    const auto openAi = chat(a);
    EXPECT_EQ(openAi->status(), 503) << openAi->body().constData();
    EXPECT_EQ(openAi->header("retry-after"), "1");
    EXPECT_EQ(openAi->json().value("error").toObject().value("code").toString(), QStringLiteral("database_unavailable"));
    const auto anthropic = send(a, Format::Anthropic);
    EXPECT_EQ(anthropic->status(), 503);
    EXPECT_EQ(anthropic->header("retry-after"), "1");
    EXPECT_EQ(anthropic->json().value("type").toString(), QStringLiteral("error")) << anthropic->body().constData();
    EXPECT_EQ(anthropic->json().value("error").toObject().value("type").toString(), QStringLiteral("overloaded_error"));
    const auto gemini = send(a, Format::Gemini);
    EXPECT_EQ(gemini->status(), 503);
    EXPECT_EQ(gemini->header("retry-after"), "1");
    EXPECT_EQ(gemini->json().value("error").toObject().value("status").toString(), QStringLiteral("UNAVAILABLE"))
        << gemini->body().constData();

    // Clients retrying under load: more than the key breaker's 100 requests, all refused. They are
    // the gateway's outage, not the key's failures: the key must not be suspended for them.
    std::vector<std::unique_ptr<GatewayClient>> burst;
    for (int i = 0; i < kOutageBurst; ++i)
        burst.push_back(sendChat(a));
    ASSERT_TRUE(waitUntil([&] { return std::all_of(burst.begin(), burst.end(), [](const auto &c) { return c->isComplete(); }); },
                          std::chrono::seconds(30)));
    for (const auto &client : burst)
        ASSERT_EQ(client->status(), 503) << client->body().constData();

    ASSERT_TRUE(s_server->start()) << s_server->error().toStdString();
    ASSERT_GT(servedAfterRestart(a), 0) << a.output().constData();
    // From then on every request is served, in each format.
    EXPECT_EQ(chat(a)->status(), 200);
    EXPECT_EQ(send(a, Format::Anthropic)->status(), 200);
    EXPECT_EQ(send(a, Format::Gemini)->status(), 200);
    EXPECT_TRUE(a.isRunning());
    // The request answered before the outage and the four after it are charged once each; the
    // refused ones hold nothing.
    EXPECT_TRUE(waitUntil([&] { return charges() == QStringLiteral("5|5"); }, std::chrono::seconds(5))) << charges().toStdString();
    EXPECT_EQ(sql(QStringLiteral("SELECT count(*) FROM reservations")), QStringLiteral("0"));
}

TEST_F(SharedPostgresTest, ARequestHoldingAReservationWhenTheDatabaseRestartsIsChargedOnceWhenItIsBack)
{
    const QString config = writeConfig(100);
    startGateway(a, config);
    addRule(R"({"provider":"alpha","latency_ms":5000})");
    const auto held = sendChat(a);
    ASSERT_TRUE(waitUntil([&] { return liveReservations() == 1; }, std::chrono::seconds(5)));
    ASSERT_TRUE(s_server->stop()) << s_server->error().toStdString();

    // A request that started completes; its charge cannot be booked until the database is back.
    ASSERT_TRUE(held->waitForEnd(std::chrono::seconds(10)));
    EXPECT_EQ(held->status(), 200) << held->body().constData();
    addRule(R"({"provider":"alpha","latency_ms":0})");
    EXPECT_EQ(chat(a)->status(), 503);

    ASSERT_TRUE(s_server->start()) << s_server->error().toStdString();
    // Booked once, and the booking ended the reservation it held across the restart.
    EXPECT_TRUE(waitUntil([&] { return charges() == QStringLiteral("1|1"); }, std::chrono::seconds(10))) << charges().toStdString();
    EXPECT_TRUE(waitUntil([&] { return sql(QStringLiteral("SELECT count(*) FROM reservations")) == QStringLiteral("0"); },
                          std::chrono::seconds(5)));
    EXPECT_EQ(sql(QStringLiteral("SELECT sum(amount_nanos) FROM ledger")), QString::number(qint64(kChargePerRequest * 1e9)));
    EXPECT_GT(servedAfterRestart(a), 0) << a.output().constData();
    EXPECT_TRUE(waitUntil([&] { return charges() == QStringLiteral("2|2"); }, std::chrono::seconds(5))) << charges().toStdString();
    // The balance every gateway shows follows: 100 − 2 × 2.
    EXPECT_TRUE(waitUntil([&] { return admin(a, "GET", "/admin/balance")->json().value("balance").toString().toDouble() == 96.0; },
                          std::chrono::seconds(3)));
}

TEST_F(SharedPostgresTest, ADatabaseThatCannotBeUsedFailsTheStartWithTheServersReason)
{
    const QString config = writeConfig(100);
    GatewayProcess refused;
    ASSERT_TRUE(refused.runToExit(config, QStringLiteral("postgres://u:sk-test-pw@127.0.0.1:1/db")));
    EXPECT_NE(refused.exitCode(), 0);
    EXPECT_TRUE(refused.output().contains("Connection refused")) << refused.output().constData();
    EXPECT_TRUE(refused.output().contains("Check that the PostgreSQL server is running")) << refused.output().constData();
    EXPECT_FALSE(refused.output().contains("sk-test-pw"));

    QString wrong = url();
    wrong.replace(QLatin1String(PostgresServer::kPassword), QLatin1String("sk-test-wrong"));
    GatewayProcess badPassword;
    ASSERT_TRUE(badPassword.runToExit(config, wrong));
    EXPECT_TRUE(badPassword.output().contains("password authentication failed")) << badPassword.output().constData();

    startGateway(a, config);
    ASSERT_TRUE(a.terminate());
    ASSERT_FALSE(sql(QStringLiteral("UPDATE meta SET value = '7' WHERE key = 'schema_version'")).isEmpty());
    GatewayProcess newer;
    ASSERT_TRUE(newer.runToExit(config, url()));
    EXPECT_NE(newer.exitCode(), 0);
    EXPECT_TRUE(newer.output().contains("schema version 7, newer than this program's 2")) << newer.output().constData();
    EXPECT_TRUE(newer.output().contains("Run the newer Switchyard")) << newer.output().constData();
}

} // namespace
} // namespace sy::system_test
