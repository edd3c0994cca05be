#include "Choices.h"

#include "config/Vocabulary.h"

#include <QVariantMap>

namespace sy::app {

QStringList Choices::formats() { return config::channelFormats(); }

QStringList Choices::tiers() { return config::channelTiers(); }

QStringList Choices::dataCollection() { return config::dataCollectionValues(); }

QStringList Choices::keyStyles()
{
    // The empty choice: the format's own way.
    return QStringList{QString()} + config::authStyles();
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
