#include "AdminFixture.h"

namespace sy::system_test {

qint64 parseNanos(const QString &text)
{
    QString digits = text.trimmed();
    const bool negative = digits.startsWith(QLatin1Char('-'));
    if (negative)
        digits.remove(0, 1);
    const QStringList parts = digits.split(QLatin1Char('.'));
    qint64 nanos = parts.at(0).toLongLong() * 1'000'000'000;
    if (parts.size() > 1)
        nanos += parts.at(1).left(9).leftJustified(9, QLatin1Char('0')).toLongLong();
    return negative ? -nanos : nanos;
}

QJsonArray jsonArray(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).array();
}

config::Config AdminFixture::adminConfig() const
{
    config::Config config = baseConfig();
    config.adminToken = QString::fromLatin1(kAdminToken);
    return config;
}

std::unique_ptr<GatewayClient> AdminFixture::admin(const QByteArray &method, const QByteArray &path, const QByteArray &body)
{
    return call(method, path, body, {{"Authorization", QByteArray("Bearer ") + kAdminToken}});
}

QJsonArray AdminFixture::adminList(const QByteArray &path)
{
    const auto client = admin("GET", path);
    EXPECT_EQ(client->status(), 200) << path.constData() << ": " << client->body().constData();
    const QJsonDocument document = QJsonDocument::fromJson(client->body());
    EXPECT_TRUE(document.isArray()) << path.constData() << ": " << client->body().constData();
    return document.array();
}

QJsonObject AdminFixture::adminObject(const QByteArray &path)
{
    const auto client = admin("GET", path);
    EXPECT_EQ(client->status(), 200) << path.constData() << ": " << client->body().constData();
    return client->json();
}

} // namespace sy::system_test
