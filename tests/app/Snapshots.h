#pragma once
// Builders of the gateway's value types for the dashboard model tests.
#include "service/DashboardSnapshot.h"
#include "service/RequestRecord.h"

namespace sy::test {

inline QDateTime t0()
{
    return QDateTime(QDate(2026, 11, 29), QTime(12, 0, 0), Qt::UTC);
}

inline service::ChannelTile tile(const QString &id, quint64 attempts = 0, quint64 errors = 0, quint64 tokens = 0)
{
    service::ChannelTile t;
    t.id = id;
    t.provider = id;
    t.state = QStringLiteral("healthy");
    t.models = {QStringLiteral("m")};
    t.capacity = 8;
    t.attemptsTotal = attempts;
    t.errorsTotal = errors;
    t.completionTokensTotal = tokens;
    return t;
}

inline service::DashboardSnapshot snapshot(qint64 atMs, std::vector<service::ChannelTile> channels)
{
    service::DashboardSnapshot s;
    s.at = t0().addMSecs(atMs);
    s.channels = std::move(channels);
    return s;
}

inline service::RequestRecord record(const char *id, int status, int attempts = 1, qint64 atMs = 0)
{
    service::RequestRecord r;
    r.id = id;
    r.at = t0().addMSecs(atMs);
    r.keyName = QStringLiteral("demo");
    r.requestedModel = QStringLiteral("m");
    r.answeringModel = QStringLiteral("m");
    r.status = status;
    for (int i = 0; i < attempts; ++i) {
        const bool last = i == attempts - 1;
        r.attempts.add({QStringLiteral("ch%1").arg(i), QStringLiteral("m"),
                        last && status < 400 ? QStringLiteral("ok") : QStringLiteral("error"),
                        qint64(100 + i), last && status < 400 ? QString() : QStringLiteral("HTTP 503: down")});
    }
    r.answeringChannel = status < 400 ? QStringLiteral("ch%1").arg(attempts - 1) : QString();
    return r;
}

inline service::FeedEvent event(const char *id, int status, bool failedOver)
{
    return {QByteArray(id), t0(), QStringLiteral("m"), QStringLiteral("summary %1").arg(id), status, failedOver};
}

} // namespace sy::test
