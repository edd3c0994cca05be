#include "api/openai/ChatBodies.h"

#include "api/JsonMembers.h"

#include <QJsonArray>
#include <algorithm>
#include <QJsonDocument>
#include <QJsonObject>

namespace sy::api::openai {

namespace {



Usage usageOf(const QJsonObject &usage)
{
    if (usage.isEmpty())
        return {};
    return {qint64(usage.value(u"prompt_tokens").toDouble()), qint64(usage.value(u"completion_tokens").toDouble()),
            qint64(usage.value(u"prompt_tokens_details").toObject().value(u"cached_tokens").toDouble()), true};
}

// Calls visit(key, count) for the members of an object whose every value is a plain count, read
// in place; false for anything else (escaped keys, other values), which a full parse reads.
template<typename Visit>
bool visitCounts(QByteArrayView object, Visit &&visit)
{
    const auto members = topLevelMembers(object);
    if (!members || hasEscapedKey(*members))
        return false;
    for (const JsonMember &member : *members) {
        const std::optional<qint64> count = plainCount(memberValue(object, member));
        if (!count)
            return false;
        visit(member.key, *count);
    }
    return true;
}

// The usage object `text` read in place when it holds only counts and *_details objects of
// counts (what upstreams send); nullopt when a full parse must read it. The last of repeated
// keys wins, as in a QJsonObject.
std::optional<Usage> usageInPlace(QByteArrayView text)
{
    const auto members = topLevelMembers(text);
    if (!members || members->empty() || hasEscapedKey(*members))
        return std::nullopt;
    Usage usage;
    usage.known = true;
    for (const JsonMember &member : *members) {
        const QByteArrayView value = memberValue(text, member);
        if (member.key.endsWith("_details") && value.startsWith('{')) {
            std::optional<qint64> cached;
            const bool counts = visitCounts(value, [&](QByteArrayView key, qint64 count) {
                if (key == "cached_tokens")
                    cached = count;
            });
            if (!counts)
                return std::nullopt;
            if (member.key == "prompt_tokens_details")
                usage.cachedTokens = cached.value_or(0);
            continue;
        }
        const std::optional<qint64> count = plainCount(value);
        if (!count)
            return std::nullopt;
        if (member.key == "prompt_tokens")
            usage.promptTokens = *count;
        else if (member.key == "completion_tokens")
            usage.completionTokens = *count;
    }
    return usage;
}

std::optional<Usage> usageIn(QByteArrayView json, const std::vector<JsonMember> &members)
{
    const JsonMember *usage = findMember(members, "usage");
    if (!usage || memberValue(json, *usage) == "null")
        return std::nullopt;
    if (std::optional<Usage> counted = usageInPlace(memberValue(json, *usage)))
        return counted;
    const QJsonObject object = QJsonDocument::fromJson(memberValue(json, *usage).toByteArray()).object();
    if (object.isEmpty())
        return std::nullopt;
    return usageOf(object);
}

QByteArray modelMember(const QString &model)
{
    return "\"model\":" + jsonString(model.toUtf8());
}

} // namespace

TokenUsage Usage::canonical() const
{
    TokenUsage usage;
    usage.known = known;
    usage.cacheReadTokens = std::clamp<qint64>(cachedTokens, 0, promptTokens);
    usage.inputTokens = promptTokens - usage.cacheReadTokens;
    usage.outputTokens = completionTokens;
    return usage;
}

QByteArray upstreamRequestBody(const ClientRequest &request, const QString &upstreamModel)
{
    const auto members = topLevelMembers(request.raw);
    if (members && !hasEscapedKey(*members)) {
        std::vector<JsonEdit> edits{{"model", jsonString(upstreamModel.toUtf8())}, {"models", {}}, {"provider", {}}};
        std::vector<QByteArray> appended;
        if (!findMember(*members, "model"))
            appended.push_back(modelMember(upstreamModel));
        if (request.stream) {
            // The gateway bills from the final usage chunk, so it always asks for one.
            if (!findMember(*members, "stream_options")) {
                appended.push_back(R"("stream_options":{"include_usage":true})");
            } else {
                QJsonObject options = request.body.value("stream_options").toObject();
                options.insert("include_usage", true);
                edits.push_back({"stream_options", QJsonDocument(options).toJson(QJsonDocument::Compact)});
            }
        }
        return rewriteMembers(request.raw, *members, edits, appended);
    }
    QJsonObject body = request.body;
    body.insert("model", upstreamModel);
    body.remove("models");
    body.remove("provider");
    if (request.stream) {
        QJsonObject options = body.value("stream_options").toObject();
        options.insert("include_usage", true);
        body.insert("stream_options", options);
    }
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

PlainAnswer rewritePlainAnswer(QByteArrayView upstreamBody, const QString &publicModel)
{
    PlainAnswer answer;
    const auto members = topLevelMembers(upstreamBody);
    if (!members || members->empty()) {
        answer.problem = QStringLiteral("upstream returned a body that is not a JSON object");
        return answer;
    }
    const JsonMember *choices = findMember(*members, "choices");
    if (!choices || !isNonEmptyArray(memberValue(upstreamBody, *choices))) {
        answer.problem = QStringLiteral("upstream returned no choices");
        return answer;
    }
    answer.usage = usageIn(upstreamBody, *members).value_or(Usage{});
    if (hasEscapedKey(*members)) {
        QJsonObject object = QJsonDocument::fromJson(upstreamBody.toByteArray()).object();
        object.insert("model", publicModel);
        answer.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
        return answer;
    }
    std::vector<QByteArray> appended;
    if (!findMember(*members, "model"))
        appended.push_back(modelMember(publicModel));
    answer.body = rewriteMembers(upstreamBody, *members, {{"model", jsonString(publicModel.toUtf8())}}, appended);
    return answer;
}

StreamChunk rewriteStreamChunk(QByteArrayView data, const QString &publicModel, bool clientWantsUsage)
{
    return rewriteStreamChunkAs(data, publicModel, jsonString(publicModel.toUtf8()), clientWantsUsage);
}

StreamChunk rewriteStreamChunkAs(QByteArrayView data, const QString &publicModel, const QByteArray &publicModelJson,
                                 bool clientWantsUsage)
{
    StreamChunk chunk;
    const auto members = topLevelMembers(data);
    if (!members || members->empty()) {
        chunk.malformed = true;
        return chunk;
    }
    if (findMember(*members, "error")) {
        chunk.isError = true;
        return chunk;
    }
    const JsonMember *choices = findMember(*members, "choices");
    chunk.hasChoices = choices && isNonEmptyArray(memberValue(data, *choices));
    chunk.usage = usageIn(data, *members);
    if (!chunk.hasChoices && chunk.usage && !clientWantsUsage)
        return chunk;  // the usage-only chunk was asked for by the gateway (billing), not the client
    std::vector<JsonEdit> edits{{"model", publicModelJson}};
    if (chunk.usage && !clientWantsUsage)
        edits.push_back({"usage", {}});
    std::vector<QByteArray> appended;
    if (!findMember(*members, "model"))
        appended.push_back("\"model\":" + publicModelJson);
    if (hasEscapedKey(*members)) {
        QJsonObject object = QJsonDocument::fromJson(data.toByteArray()).object();
        object.insert("model", publicModel);
        if (chunk.usage && !clientWantsUsage)
            object.remove("usage");
        chunk.data = QJsonDocument(object).toJson(QJsonDocument::Compact);
        return chunk;
    }
    chunk.data = rewriteMembers(data, *members, edits, appended);
    return chunk;
}

} // namespace sy::api::openai
