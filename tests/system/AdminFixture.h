#pragma once
// AdminFixture: the integration workspace (GatewayFixture) with an admin token, and helpers that
// call the admin API under /admin/ and read its JSON answers.
// Thread: the test's thread, with its event loop (every wait is bounded).
#include "GatewayFixture.h"

#include <QDateTime>

namespace sy::system_test {

using integration::GatewayClient;
using integration::RequestHeaders;

inline constexpr char kAdminToken[] = "sya-system-test-admin-token";

// Exact amount in nanos of a currency text with up to 9 decimals ("0.000520000", "-1.5").
qint64 parseNanos(const QString &text);
// The body as a JSON array (empty if it is not one).
QJsonArray jsonArray(const QByteArray &body);

class AdminFixture : public integration::GatewayFixture {
protected:
    // baseConfig() with the admin token set.
    config::Config adminConfig() const;

    // An admin call with the admin token, waited for (bounded).
    std::unique_ptr<GatewayClient> admin(const QByteArray &method, const QByteArray &path, const QByteArray &body = {});
    std::unique_ptr<GatewayClient> admin(const QByteArray &method, const QByteArray &path, const QJsonObject &body)
    {
        return admin(method, path, QJsonDocument(body).toJson(QJsonDocument::Compact));
    }
    // GET path, expecting 200 and a JSON array / object.
    QJsonArray adminList(const QByteArray &path);
    QJsonObject adminObject(const QByteArray &path);

    // A chat request sent with `secret` as its key.
    std::unique_ptr<GatewayClient> chatAs(const QByteArray &secret, const QByteArray &body)
    {
        return chat(body, {{"Authorization", "Bearer " + secret}});
    }
};

} // namespace sy::system_test
