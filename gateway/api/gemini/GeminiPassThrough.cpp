#include "api/gemini/GeminiPassThrough.h"

#include "api/JsonMembers.h"
#include "api/gemini/GeminiDialect.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::gemini {

namespace {

QJsonValue parseValue(QByteArrayView json)
{
    // Wrapped so that any value (an array, an object) parses as one document.
    const QJsonDocument doc = QJsonDocument::fromJson("[" + json.toByteArray() + "]");
    return doc.array().first();
}

// What a GenerateContentResponse's members say about it, found without parsing the whole text.
struct ChunkFacts {
    bool error = false;
    QString errorMessage;
    QString blockReason;
    bool hasCandidates = false;    // a non-empty candidates array
    bool hasParts = false;         // the first candidate has parts
    QString text;                  // the first candidate's text parts (not thoughts)
    std::optional<TokenUsage> usage;
    QByteArray rewritten;          // the text with modelVersion set to the public id
};

std::optional<ChunkFacts> readChunk(QByteArrayView json, const QString &publicModel)
{
    const auto members = topLevelMembers(json);
    if (!members)
        return std::nullopt;
    ChunkFacts facts;
    if (const JsonMember *error = findMember(*members, "error")) {
        facts.error = true;
        facts.errorMessage = parseValue(memberValue(json, *error)).toObject().value("message").toString();
        return facts;
    }
    for (const char *name : {"promptFeedback", "prompt_feedback"}) {
        if (const JsonMember *feedback = findMember(*members, name)) {
            const QJsonObject object = parseValue(memberValue(json, *feedback)).toObject();
            facts.blockReason = object.value("blockReason").toString(object.value("block_reason").toString());
        }
    }
    if (const JsonMember *candidates = findMember(*members, "candidates")) {
        const QJsonArray list = parseValue(memberValue(json, *candidates)).toArray();
        facts.hasCandidates = !list.isEmpty();
        const QJsonArray parts = list.first().toObject().value("content").toObject().value("parts").toArray();
        facts.hasParts = !parts.isEmpty();
        for (const QJsonValue &part : parts) {
            const QJsonObject object = part.toObject();
            if (!object.value("thought").toBool())
                facts.text += object.value("text").toString();
        }
    }
    for (const char *name : {"usageMetadata", "usage_metadata"}) {
        if (const JsonMember *usage = findMember(*members, name)) {
            const TokenUsage read = usageFromMetadata(parseValue(memberValue(json, *usage)).toObject());
            if (read.known)
                facts.usage = read;
        }
    }
    const QByteArray model = jsonString(publicModel.toUtf8());
    facts.rewritten = findMember(*members, "modelVersion")
        ? rewriteMembers(json, *members, {{"modelVersion", model}})
        : json.toByteArray();
    return facts;
}

} // namespace

GeminiPassThrough::GeminiPassThrough(ClientRequest client, WriterOptions options)
    : m_client(std::move(client)), m_options(std::move(options)), m_framer(m_options.jsonArrayStream)
{
}

WireRequest GeminiPassThrough::request(const QString &upstreamModel, const QString &credential)
{
    WireRequest wire;
    wire.path = modelPath(upstreamModel, m_client.stream);
    wire.headers.emplaceBack("content-type", "application/json");
    wire.headers.emplaceBack("accept", m_client.stream ? "text/event-stream" : "application/json");
    if (!credential.isEmpty())
        wire.headers.emplaceBack("x-goog-api-key", credential.toUtf8());
    const auto members = topLevelMembers(m_client.raw);
    if (!members || hasEscapedKey(*members)) {
        // A key written with escapes could be `models` in disguise: only a parser sees it.
        QJsonObject body = m_client.body;
        body.remove("models");
        body.remove("provider");
        wire.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
        return wire;
    }
    wire.body = rewriteMembers(m_client.raw, *members, {{"models", {}}, {"provider", {}}});
    return wire;
}

TranslatedAnswer GeminiPassThrough::answer(QByteArrayView upstreamBody)
{
    TranslatedAnswer out;
    const std::optional<ChunkFacts> facts = readChunk(upstreamBody, m_options.publicModel);
    if (!facts) {
        out.problem = QStringLiteral("the answer is not a JSON object");
    } else if (facts->error) {
        out.problem = QStringLiteral("the upstream answered an error: %1").arg(facts->errorMessage);
    } else if (!facts->hasCandidates || !facts->hasParts) {
        out.problem = facts->blockReason.isEmpty() ? QStringLiteral("the answer has no content")
                                                   : QStringLiteral("the prompt was blocked: %1").arg(facts->blockReason);
    }
    if (!out.problem.isEmpty())
        return out;
    out.usage = facts->usage.value_or(TokenUsage{});
    out.text = facts->text;
    out.body = facts->rewritten;
    return out;
}

TranslatedEvent GeminiPassThrough::event(const SseEvent &event)
{
    TranslatedEvent out;
    const std::optional<ChunkFacts> facts = readChunk(event.data, m_options.publicModel);
    if (!facts) {
        out.malformed = true;
        return out;
    }
    if (facts->error || !facts->blockReason.isEmpty()) {
        out.upstreamError = true;
        out.errorMessage = facts->error ? facts->errorMessage : QStringLiteral("the prompt was blocked: %1").arg(facts->blockReason);
        if (out.errorMessage.isEmpty())
            out.errorMessage = QStringLiteral("the upstream reported an error in the stream");
        return out;
    }
    m_content = m_content || facts->hasParts;
    out.content = m_content;
    out.usage = facts->usage;
    out.text = facts->text;
    out.out = m_framer.element(facts->rewritten);
    return out;
}

QByteArray GeminiPassThrough::interrupted(const QString &reason)
{
    QByteArray out = m_framer.element(interruptedObject(reason));
    return out + m_framer.close();
}

} // namespace sy::api::gemini
