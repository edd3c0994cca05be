#pragma once
// GatewayFixture: a SimServer and a GatewayService in the test's own thread, each on a loopback
// port 0, wired as a user would: three simulated providers as channels of two public models.
//
//   model acme/chat-a   channels alpha (upstream "chat-a-up"), beta (upstream "chat-a-up")
//   model acme/chat-b   channel  gamma (upstream "chat-b-up")
//   model acme/old      channel  alpha (upstream "old-up"), deprecated (sunset 2099-12-31)
//   virtual acme/auto   primary acme/chat-a, fallback acme/chat-b
//   keys: kSecret (every model), kRestrictedSecret (only acme/chat-a)
//
// A test changes baseConfig() as it needs, then startGateway(); simulator rules go in with
// addRule() and upstream hits are read from the simulator's counters.
#include "GatewayClient.h"
#include "SimServer.h"
#include "config/Config.h"
#include "service/GatewayService.h"
#include "support/Waits.h"
#include "upstream/UpstreamClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <gtest/gtest.h>
#include <memory>
#include <vector>
#include <ostream>

// Readable failure messages for Qt values in EXPECT_EQ.
inline void PrintTo(const QString &value, std::ostream *out) { *out << '"' << value.toStdString() << '"'; }
inline void PrintTo(const QByteArray &value, std::ostream *out) { *out << '"' << value.toStdString() << '"'; }
inline void PrintTo(const QStringList &value, std::ostream *out)
{
    *out << '[' << value.join(QStringLiteral(", ")).toStdString() << ']';
}

namespace sy::integration {

inline constexpr char kSecret[] = "sk-sy-integration-main";
inline constexpr char kRestrictedSecret[] = "sk-sy-integration-restricted";
inline constexpr char kModelA[] = "acme/chat-a";
inline constexpr char kModelB[] = "acme/chat-b";
inline constexpr char kModelOld[] = "acme/old";
inline constexpr char kVirtual[] = "acme/auto";

class GatewayFixture : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    // The workspace described above; channels point at the simulator.
    config::Config baseConfig() const;
    config::Channel &channel(config::Config &config, const QString &id) const;
    QString simBaseUrl(const QString &provider) const;
    // A loopback port with nobody listening on it (for "connection refused").
    static quint16 closedPort();

    void startGateway(config::Config config);
    void startGateway() { startGateway(baseConfig()); }
    // With the gateway's upstream client replaced (e.g. CredentialRoutedUpstream).
    void startGateway(config::Config config, std::unique_ptr<upstream::UpstreamClient> upstream);

    // Upserts one simulator rule given as docs/sim.md JSON, e.g. {"provider":"alpha","failure":"hang"}.
    void addRule(const QByteArray &ruleJson);
    // Chat requests the simulator received for `provider` (all models).
    qint64 hits(const QString &provider) const;
    // Chat requests the simulator received for an upstream model name (all providers).
    qint64 hitsForModel(const QString &upstreamModel) const;

    // `provider.order` alpha, beta, gamma: the default channel order is a weighted random draw
    // (SPEC §3.5), so every request names the order its test expects.
    static QJsonObject fixedOrder();
    // A Chat Completions body for `model` with one user message and fixedOrder(); `extra`
    // fields are merged in.
    static QByteArray chatBody(const QString &model, const QJsonObject &extra = {});
    static QByteArray streamBody(const QString &model, const QJsonObject &extra = {});

    // Sends a request with the main key (unless `headers` carries an Authorization) and returns
    // the client; does not wait.
    std::unique_ptr<GatewayClient> send(const QByteArray &method, const QByteArray &path,
                                        const QByteArray &body = {}, RequestHeaders headers = {});
    // Sends and waits (bounded) for the response to end.
    std::unique_ptr<GatewayClient> call(const QByteArray &method, const QByteArray &path,
                                        const QByteArray &body = {}, RequestHeaders headers = {});
    std::unique_ptr<GatewayClient> chat(const QByteArray &body, RequestHeaders headers = {})
    {
        return call("POST", "/v1/chat/completions", body, std::move(headers));
    }

    // X-TsarRouter-Attempts of a response, parsed (fails the test when it is not a JSON array).
    static QJsonArray attempts(const GatewayClient &client);
    // The "status" of each attempt, in order, e.g. {"error", "ok"}.
    static QStringList attemptStatuses(const QJsonArray &attempts);
    static QStringList attemptProviders(const QJsonArray &attempts);

    // Sends `count` requests at once and waits (bounded) until every one has ended.
    std::vector<std::unique_ptr<GatewayClient>> chatConcurrently(int count, const QByteArray &body,
                                                                 std::chrono::milliseconds limit = std::chrono::seconds(10));
    // The error object of an OpenAI-shaped error body; fails the test when `type` differs.
    static QJsonObject openAiError(const GatewayClient &client, const QString &type);

    std::unique_ptr<sim::SimServer> sim;
    quint16 simPort = 0;
    std::unique_ptr<service::GatewayService> gateway;
    quint16 gatewayPort = 0;
};

} // namespace sy::integration
