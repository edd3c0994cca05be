#include "ProcessFixture.h"

#include "LedgerPages.h"

#include <QCoreApplication>
#include <QFile>
#include <sys/stat.h>

namespace sy::system_test {

void ProcessFixture::SetUp()
{
    ASSERT_TRUE(dir.isValid());
    ASSERT_FALSE(GatewayProcess::programPath().isEmpty()) << "SWITCHYARD_BUILD_DIR is not set";
    ASSERT_TRUE(QFile::exists(GatewayProcess::programPath())) << qPrintable(GatewayProcess::programPath());
    sim = std::make_unique<sim::SimServer>(sim::SimOptions{});
    simPort = sim->listen(QHostAddress::LocalHost, 0);
    ASSERT_NE(simPort, 0) << qPrintable(sim->errorString());
}

void ProcessFixture::TearDown()
{
    if (gateway.isRunning()) {
        EXPECT_TRUE(gateway.terminate()) << "the gateway did not stop on SIGTERM";
    }
    sim.reset();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

void ProcessFixture::writeConfig(double balance)
{
    // Per 1M tokens: a request of the simulator's size costs well under 0.001.
    const QString yaml = QStringLiteral(
        "listen: 127.0.0.1:0\n"
        "admin_token: %1\n"
        "currency: USD\n"
        "balance: %2\n"
        "settings: {retry_pause_ms: 20, first_chunk_timeout_s: 5}\n"
        "channels:\n"
        "  - id: alpha\n"
        "    provider: alpha\n"
        "    base_url: http://127.0.0.1:%3/alpha/v1\n"
        "    credentials: [%4]\n"
        "    timeouts: {connect_s: 2, first_byte_s: 3, idle_s: 3}\n"
        "    models:\n"
        "      - id: %5\n"
        "        upstream: chat-a-up\n"
        "        price: {prompt: 3, completion: 7}\n"
        "keys:\n"
        "  - name: main\n"
        "    secret: %6\n")
        .arg(QLatin1String(kProcessAdminToken)).arg(balance).arg(simPort)
        .arg(QLatin1String(kCanaryCredential), QLatin1String(kProcessModel), QLatin1String(kProcessKeySecret));
    QFile file(configPath());
    ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(yaml.toUtf8());
}

void ProcessFixture::startGateway()
{
    ASSERT_TRUE(gateway.start(configPath(), databasePath()))
        << "exit code " << gateway.exitCode() << "; output:\n" << gateway.output().constData();
}

std::unique_ptr<GatewayClient> ProcessFixture::request(const QByteArray &method, const QByteArray &path,
                                                       const QByteArray &body, const RequestHeaders &headers)
{
    auto client = std::make_unique<GatewayClient>(gateway.port());
    client->send(method, path, body, headers);
    EXPECT_TRUE(client->waitForEnd()) << method.constData() << ' ' << path.constData() << " did not end";
    return client;
}

QJsonArray ProcessFixture::adminList(const QByteArray &path)
{
    const auto client = admin("GET", path);
    EXPECT_EQ(client->status(), 200) << path.constData() << ": " << client->body().constData();
    return QJsonDocument::fromJson(client->body()).array();
}

QJsonObject ProcessFixture::adminObject(const QByteArray &path)
{
    const auto client = admin("GET", path);
    EXPECT_EQ(client->status(), 200) << path.constData() << ": " << client->body().constData();
    return client->json();
}

QJsonArray ProcessFixture::wholeLedger()
{
    return everyLedgerPage([this](const QByteArray &path) { return adminList(path); });
}

QByteArray ProcessFixture::chatBody(bool stream)
{
    const QJsonObject body{{"model", kProcessModel},
                           {"stream", stream},
                           {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Say hello to the switchyard."}}}}};
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray ProcessFixture::databaseBytes() const
{
    QFile file(databasePath());
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

int ProcessFixture::databaseMode() const
{
    struct stat info {};
    if (::stat(QFile::encodeName(databasePath()).constData(), &info) != 0)
        return -1;
    return int(info.st_mode & 0777);
}

} // namespace sy::system_test
