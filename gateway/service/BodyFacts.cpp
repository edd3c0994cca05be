#include "service/BodyFacts.h"

#include "routing/StickyConversations.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::service {

namespace {

BodyFacts::Kind kindOf(const QJsonValue &value, bool wanted)
{
    if (value.isUndefined())
        return BodyFacts::Kind::Absent;
    if (value.isNull())
        return BodyFacts::Kind::Null;
    return wanted ? BodyFacts::Kind::Wanted : BodyFacts::Kind::Other;
}

bool isImagePart(const QJsonObject &part)
{
    const QString type = part.value(u"type").toString();
    if (type == QLatin1String("image_url") || type == QLatin1String("input_image") || type == QLatin1String("image"))
        return true;
    // Gemini: inline bytes or a file reference with an image media type.
    for (const char *member : {"inlineData", "inline_data", "fileData", "file_data"}) {
        const QJsonObject data = part.value(QLatin1String(member)).toObject();
        const QString mime = data.value(u"mimeType").toString(data.value(u"mime_type").toString());
        if (mime.startsWith(QLatin1String("image/")))
            return true;
    }
    return false;
}

bool needsVision(const QJsonArray &turns)
{
    for (const QJsonValue &turn : turns) {
        const QJsonObject object = turn.toObject();
        const QJsonArray parts = object.value(u"content").isArray() ? object.value(u"content").toArray()
                                                                   : object.value(u"parts").toArray();
        for (const QJsonValue &part : parts) {
            if (isImagePart(part.toObject()))
                return true;
        }
    }
    return false;
}

bool turnsUsable(const QJsonValue &turns, api::Format format)
{
    if (format == api::Format::OpenAiResponses && turns.isString())
        return !turns.toString().isEmpty();
    return turns.isArray() && !turns.toArray().isEmpty();
}

qint64 charactersOf(const QJsonValue &value)
{
    if (value.isString())
        return value.toString().size();
    if (value.isArray())
        return QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact).size();
    return 0;
}

} // namespace

QLatin1String turnsMember(api::Format format)
{
    switch (format) {
    case api::Format::OpenAiResponses: return QLatin1String("input");
    case api::Format::Gemini: return QLatin1String("contents");
    case api::Format::OpenAiChat:
    case api::Format::Anthropic: break;
    }
    return QLatin1String("messages");
}

qint64 promptCharactersOf(const QJsonObject &body)
{
    qint64 characters = charactersOf(body.value(QLatin1String("system")));   // Anthropic's system prompt
    const QJsonArray messages = body.value(QLatin1String("messages")).toArray();
    for (const QJsonValue &message : messages)
        characters += charactersOf(message.toObject().value(QLatin1String("content")));
    return characters;
}

BodyFacts factsOf(const QJsonObject &body, api::Format format)
{
    BodyFacts facts;
    const QJsonValue model = body.value(u"model");
    facts.model = kindOf(model, model.isString());
    facts.modelText = model.toString();
    const QJsonValue models = body.value(u"models");
    facts.models = kindOf(models, models.isArray());
    for (const QJsonValue &item : models.toArray())
        facts.modelsItems.push_back(item.isString() ? std::optional<QString>(item.toString()) : std::nullopt);
    const QJsonValue turns = body.value(turnsMember(format));
    facts.turnsUsable = turnsUsable(turns, format);
    const QJsonValue stream = body.value(u"stream");
    facts.stream = kindOf(stream, stream.isBool());
    facts.streamValue = stream.toBool(false);
    facts.includeUsage = body.value(u"stream_options").toObject().value(u"include_usage").toBool(false);
    facts.user = body.value(u"user").toString();
    facts.hasProvider = body.contains(u"provider");
    facts.needsVision = needsVision(turns.toArray());
    facts.promptCharacters = promptCharactersOf(body);
    for (const QLatin1String field : {QLatin1String("max_completion_tokens"), QLatin1String("max_tokens")}) {
        if (const QJsonValue v = body.value(field); v.isDouble() && v.toDouble() > 0) {
            facts.maxOutputTokens = qint64(v.toDouble());
            break;
        }
    }
    // Only read when the client names neither a session nor a user (routing::conversationKey).
    if (facts.user.isEmpty())
        facts.turnsDigest = routing::leadingTurnsDigest(turns.toArray());
    return facts;
}

} // namespace sy::service
