#include "api/openai/OpenAiWire.h"

#include <QJsonDocument>
#include <QUuid>

namespace sy::api::openai {

QString finishReasonFor(StopReason reason, bool calledTools)
{
    switch (reason) {
    case StopReason::EndTurn:
    case StopReason::StopSequence: return QStringLiteral("stop");
    case StopReason::MaxTokens: return QStringLiteral("length");
    case StopReason::ToolUse: return QStringLiteral("tool_calls");
    case StopReason::ContentFilter: return QStringLiteral("content_filter");
    case StopReason::Unknown:
    case StopReason::Error: break;
    }
    return calledTools ? QStringLiteral("tool_calls") : QStringLiteral("stop");
}

StopReason stopReasonFrom(const QString &finishReason)
{
    if (finishReason == QLatin1String("stop"))
        return StopReason::EndTurn;
    if (finishReason == QLatin1String("length"))
        return StopReason::MaxTokens;
    if (finishReason == QLatin1String("tool_calls") || finishReason == QLatin1String("function_call"))
        return StopReason::ToolUse;
    if (finishReason == QLatin1String("content_filter"))
        return StopReason::ContentFilter;
    return StopReason::Unknown;
}

QJsonObject usageJson(const TokenUsage &usage)
{
    const qint64 prompt = usage.promptTokensTotal();
    return QJsonObject{
        {"prompt_tokens", prompt},
        {"completion_tokens", usage.outputTokens},
        {"total_tokens", prompt + usage.outputTokens},
        {"prompt_tokens_details", QJsonObject{{"cached_tokens", usage.cacheReadTokens}}},
    };
}

TokenUsage usageFrom(const QJsonObject &usage)
{
    TokenUsage out;
    if (usage.isEmpty())
        return out;
    out.known = true;
    const qint64 prompt = qint64(usage.value("prompt_tokens").toDouble());
    const QJsonValue details = usage.value("prompt_tokens_details");
    qint64 cached = details.isObject() ? qint64(details.toObject().value("cached_tokens").toDouble())
                                       : qint64(usage.value("prompt_cache_hit_tokens").toDouble());
    cached = qBound(qint64(0), cached, prompt);
    out.cacheReadTokens = cached;
    out.inputTokens = prompt - cached;
    out.outputTokens = qint64(usage.value("completion_tokens").toDouble());
    return out;
}

bool setImageFromUrl(const QString &url, ContentPart &part)
{
    part.kind = ContentPart::Kind::Image;
    if (!url.startsWith(QLatin1String("data:"), Qt::CaseInsensitive)) {
        part.imageUrl = url;
        return true;
    }
    const qsizetype comma = url.indexOf(QLatin1Char(','));
    if (comma < 0)
        return false;
    const QString header = url.mid(5, comma - 5);   // "image/png;base64"
    if (!header.endsWith(QLatin1String(";base64"), Qt::CaseInsensitive))
        return false;
    part.mediaType = header.chopped(7);
    part.base64Data = url.mid(comma + 1).toLatin1();
    return true;
}

QString imageUrlOf(const ContentPart &part)
{
    if (!part.imageUrl.isEmpty())
        return part.imageUrl;
    return QStringLiteral("data:%1;base64,%2").arg(part.mediaType, QString::fromLatin1(part.base64Data));
}

QString effortFor(const Reasoning &reasoning)
{
    if (!reasoning.effort.isEmpty())
        return reasoning.effort;
    if (!reasoning.budgetTokens)
        return {};
    if (*reasoning.budgetTokens < 2048)
        return QStringLiteral("low");
    return *reasoning.budgetTokens < 8192 ? QStringLiteral("medium") : QStringLiteral("high");
}

QByteArray sseData(const QJsonObject &object)
{
    return "data: " + QJsonDocument(object).toJson(QJsonDocument::Compact) + "\n\n";
}

QString chatCompletionId(const QString &id, const QByteArray &fallback)
{
    if (id.startsWith(QLatin1String("chatcmpl-")))
        return id;
    if (!id.isEmpty())
        return QStringLiteral("chatcmpl-") + id;
    if (!fallback.isEmpty())
        return QStringLiteral("chatcmpl-") + QString::fromUtf8(fallback);
    return QStringLiteral("chatcmpl-") + QUuid::createUuid().toString(QUuid::Id128);
}

} // namespace sy::api::openai
