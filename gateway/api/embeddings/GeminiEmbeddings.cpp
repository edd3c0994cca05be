#include "api/embeddings/GeminiEmbeddings.h"

#include "api/JsonMembers.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QtEndian>

namespace sy::api::embeddings {

namespace {

void appendFloats(QByteArray &out, const QJsonArray &values)
{
    out.append('[');
    for (qsizetype i = 0; i < values.size(); ++i) {
        if (i > 0)
            out.append(',');
        out.append(QByteArray::number(values.at(i).toDouble(), 'g', QLocale::FloatingPointShortest));
    }
    out.append(']');
}

// OpenAI's base64 encoding: the vector as little-endian float32, base64.
void appendBase64(QByteArray &out, const QJsonArray &values)
{
    QByteArray raw(values.size() * qsizetype(sizeof(float)), Qt::Uninitialized);
    for (qsizetype i = 0; i < values.size(); ++i)
        qToLittleEndian(float(values.at(i).toDouble()), raw.data() + i * qsizetype(sizeof(float)));
    out.append('"').append(raw.toBase64()).append('"');
}

bool allNumbers(const QJsonArray &values)
{
    for (const QJsonValue &value : values) {
        if (!value.isDouble())
            return false;
    }
    return !values.isEmpty();
}

} // namespace

QString GeminiEmbeddings::cannotServe(const EmbeddingsRequest &request) const
{
    if (request.tokenInput)
        return QStringLiteral("gemini channels embed text: token-array input goes to openai channels only");
    return {};
}

WireRequest GeminiEmbeddings::request(const EmbeddingsRequest &request, const QString &upstreamModel,
                                      const QString &credential) const
{
    WireRequest wire;
    wire.path = "/models/" + upstreamModel.toUtf8() + ":batchEmbedContents";
    wire.headers.emplaceBack("content-type", "application/json");
    wire.headers.emplaceBack("accept", "application/json");
    if (!credential.isEmpty())
        wire.headers.emplaceBack("x-goog-api-key", credential.toUtf8());
    const QString modelName = QStringLiteral("models/") + upstreamModel;
    QJsonArray requests;
    for (const QString &text : request.texts) {
        QJsonObject one{{"model", modelName},
                        {"content", QJsonObject{{"parts", QJsonArray{QJsonObject{{"text", text}}}}}}};
        if (request.dimensions)
            one.insert("outputDimensionality", *request.dimensions);
        requests.append(one);
    }
    wire.body = QJsonDocument(QJsonObject{{"requests", requests}}).toJson(QJsonDocument::Compact);
    return wire;
}

EmbeddingsAnswer GeminiEmbeddings::answer(const QByteArray &upstreamBody, const EmbeddingsRequest &request,
                                          const QString &publicModel) const
{
    EmbeddingsAnswer answer;
    const QJsonArray embeddings = QJsonDocument::fromJson(upstreamBody).object().value("embeddings").toArray();
    if (embeddings.size() != request.inputCount) {
        answer.problem = QStringLiteral("upstream answer has %1 embeddings for %2 inputs").arg(embeddings.size()).arg(request.inputCount);
        return answer;
    }
    QByteArray &out = answer.body;
    out.reserve(upstreamBody.size() + 256);
    out.append("{\"object\":\"list\",\"data\":[");
    for (qsizetype i = 0; i < embeddings.size(); ++i) {
        const QJsonArray values = embeddings.at(i).toObject().value("values").toArray();
        if (!allNumbers(values)) {
            answer.problem = QStringLiteral("upstream embedding %1 has no values").arg(i);
            answer.body.clear();
            return answer;
        }
        if (i > 0)
            out.append(',');
        out.append("{\"object\":\"embedding\",\"index\":").append(QByteArray::number(i)).append(",\"embedding\":");
        if (request.base64)
            appendBase64(out, values);
        else
            appendFloats(out, values);
        out.append('}');
    }
    answer.promptTokens = estimatedPromptTokens(request);
    const QByteArray tokens = QByteArray::number(answer.promptTokens);
    out.append("],\"model\":").append(jsonString(publicModel.toUtf8()));
    out.append(",\"usage\":{\"prompt_tokens\":").append(tokens).append(",\"total_tokens\":").append(tokens).append("}}");
    return answer;
}

} // namespace sy::api::embeddings
