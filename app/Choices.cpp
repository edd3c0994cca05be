#include "Choices.h"

#include <QVariantMap>

namespace sy::app {

QStringList Choices::formats() { return {QStringLiteral("openai"), QStringLiteral("anthropic")}; }

QStringList Choices::tiers() { return {QStringLiteral("standard"), QStringLiteral("priority"), QStringLiteral("flex")}; }

QStringList Choices::dataCollection() { return {QStringLiteral("allow"), QStringLiteral("deny")}; }

QStringList Choices::keyStyles()
{
    return {QString(), QStringLiteral("bearer"), QStringLiteral("x-api-key"), QStringLiteral("x-goog-api-key"),
            QStringLiteral("api-key"), QStringLiteral("none")};
}

QStringList Choices::capabilities()
{
    return {QStringLiteral("chat"), QStringLiteral("tools"), QStringLiteral("vision"), QStringLiteral("json"),
            QStringLiteral("embeddings")};
}

QVariantList Choices::outageKinds()
{
    auto kind = [](const QString &text, const char *value) {
        return QVariantMap{{QStringLiteral("text"), text}, {QStringLiteral("value"), QString::fromLatin1(value)}};
    };
    return {kind(tr("HTTP 503"), "error:503"), kind(tr("HTTP 500"), "error:500"),
            kind(tr("429 rate limit"), "rate_limit"), kind(tr("Timeout"), "timeout"), kind(tr("Hang"), "hang"),
            kind(tr("Drop mid-stream"), "drop_mid_stream"), kind(tr("Slow (+3 s)"), "slow")};
}

QStringList Choices::outageKindValues()
{
    QStringList values;
    for (const QVariant &kind : outageKinds())
        values << kind.toMap().value(QStringLiteral("value")).toString();
    return values;
}

} // namespace sy::app
