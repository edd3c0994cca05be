#pragma once
// ProcessFixture: the real switchyard-gateway program (GatewayProcess) in a temporary directory,
// with a configuration file written by the test and a SimServer in the test process on a loopback
// port 0 as its only upstream:
//
//   channel alpha (provider alpha, credential kCanaryCredential) serves acme/chat-a → chat-a-up
//   key main (secret kProcessKeySecret), admin token kProcessAdminToken, balance as given
//
// Helpers send requests to the running program with GatewayClient and wait (bounded).
#include "GatewayClient.h"
#include "GatewayProcess.h"
#include "SimServer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <memory>

namespace sy::system_test {

using integration::GatewayClient;
using integration::RequestHeaders;

inline constexpr char kCanaryCredential[] = "canary-cred-7f3a";
inline constexpr char kProcessKeySecret[] = "sk-canary-key-51d0";
inline constexpr char kProcessAdminToken[] = "sya-process-admin-token";
inline constexpr char kProcessModel[] = "acme/chat-a";

class ProcessFixture : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    QString configPath() const { return dir.filePath(QStringLiteral("gateway.yaml")); }
    QString databasePath() const { return dir.filePath(QStringLiteral("data/switchyard.db")); }
    // Writes the configuration file described above.
    void writeConfig(double balance);

    // Starts `gateway` on the fixture's files; fails the test with its output when it does not.
    void startGateway();

    // A request to the running program, waited for (bounded).
    std::unique_ptr<GatewayClient> request(const QByteArray &method, const QByteArray &path,
                                           const QByteArray &body = {}, const RequestHeaders &headers = {});
    std::unique_ptr<GatewayClient> chat(const QByteArray &body, const QByteArray &secret = kProcessKeySecret)
    {
        return request("POST", "/v1/chat/completions", body, {{"Authorization", "Bearer " + secret}});
    }
    std::unique_ptr<GatewayClient> admin(const QByteArray &method, const QByteArray &path, const QJsonObject &body = {})
    {
        return request(method, path, body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact),
                       {{"Authorization", QByteArray("Bearer ") + kProcessAdminToken}});
    }
    // GET path with the admin token, expecting 200 and a JSON array / object.
    QJsonArray adminList(const QByteArray &path);
    QJsonObject adminObject(const QByteArray &path);
    // Every entry of GET /admin/ledger, page after page (`after=` the last sequence listed): one
    // page holds at most 1,000, fewer than a second of load books on a fast build.
    QJsonArray wholeLedger();

    static QByteArray chatBody(bool stream = false);
    // The database file's bytes (empty when absent).
    QByteArray databaseBytes() const;
    // The permission bits (e.g. 0600) of the database file.
    int databaseMode() const;

    QTemporaryDir dir;
    std::unique_ptr<sim::SimServer> sim;
    quint16 simPort = 0;
    GatewayProcess gateway;
};

} // namespace sy::system_test
