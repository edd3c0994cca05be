#include "api/embeddings/OpenAiEmbeddings.h"

#include "api/JsonMembers.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace sy::api::embeddings {

namespace {

// The routing fields the gateway reads and the upstream must not see.
const char *const kRoutingFields[] = {"models", "provider"};

} // namespace

WireRequest OpenAiEmbeddings::request(const EmbeddingsRequest &request, const QString &upstreamModel,
                                      const QString &credential) const
{
    WireRequest wire;
    wire.path = "/embeddings";
    wire.headers.emplaceBack("content-type", "application/json");
    wire.headers.emplaceBack("accept", "application/json");
    if (!credential.isEmpty())
        wire.headers.emplaceBack("authorization", "Bearer " + credential.toUtf8());
    const std::optional<std::vector<JsonMember>> members = topLevelMembers(request.raw);
    if (members && !hasEscapedKey(*members)) {
        std::vector<JsonEdit> edits{{"model", jsonString(upstreamModel.toUtf8())}};
        for (const char *field : kRoutingFields)
            edits.push_back({field, {}});
        wire.body = rewriteMembers(request.raw, *members, edits);
        return wire;
    }
    QJsonObject body = request.body;
    body.insert("model", upstreamModel);
    for (const char *field : kRoutingFields)
        body.remove(QLatin1String(field));
    wire.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return wire;
}

EmbeddingsAnswer OpenAiEmbeddings::answer(const QByteArray &upstreamBody, const EmbeddingsRequest &request,
                                          const QString &publicModel) const
{
    EmbeddingsAnswer answer;
    // Vectors make the body large: only `data` is looked at (not empty) and `usage` parsed.
    const std::optional<std::vector<JsonMember>> members = topLevelMembers(upstreamBody);
    if (!members || hasEscapedKey(*members)) {
        answer.problem = QStringLiteral("upstream answer is not an embeddings list");
        return answer;
    }
    const JsonMember *data = findMember(*members, "data");
    if (!data || !isNonEmptyArray(memberValue(upstreamBody, *data))) {
        answer.problem = QStringLiteral("upstream answer has no embeddings");
        return answer;
    }
    answer.promptTokens = estimatedPromptTokens(request);
    if (const JsonMember *usage = findMember(*members, "usage")) {
        const QJsonObject counted = QJsonDocument::fromJson(memberValue(upstreamBody, *usage).toByteArray()).object();
        if (const QJsonValue tokens = counted.value("prompt_tokens"); tokens.isDouble() && tokens.toDouble() >= 0)
            answer.promptTokens = qint64(tokens.toDouble());
    }
    answer.body = rewriteMembers(upstreamBody, *members, {{"model", jsonString(publicModel.toUtf8())}});
    return answer;
}

} // namespace sy::api::embeddings
