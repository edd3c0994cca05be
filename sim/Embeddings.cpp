#include "Embeddings.h"

#include "JsonText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QRandomGenerator>
#include <QtEndian>
#include <cmath>

namespace sy::sim {

namespace {

constexpr int kOpenAiDefaultDimensions = 1536;
constexpr int kGeminiDefaultDimensions = 768;

// FNV-1a: a hash that, unlike qHash, is the same in every process.
quint64 stableHash(const QByteArray &bytes)
{
    quint64 hash = 14695981039346656037ull;
    for (const char c : bytes) {
        hash ^= quint64(static_cast<unsigned char>(c));
        hash *= 1099511628211ull;
    }
    return hash;
}

int promptTokens(const QStringList &texts)
{
    qsizetype characters = 0;
    for (const QString &text : texts)
        characters += text.size();
    return int(qMax<qsizetype>(1, characters / 4));
}

void appendValues(QByteArray &out, const std::vector<float> &values)
{
    out.append('[');
    for (size_t i = 0; i < values.size(); ++i) {
        if (i > 0)
            out.append(',');
        out.append(QByteArray::number(values[i], 'g', 7));
    }
    out.append(']');
}

QByteArray base64Values(const std::vector<float> &values)
{
    QByteArray raw(qsizetype(values.size() * sizeof(float)), Qt::Uninitialized);
    for (size_t i = 0; i < values.size(); ++i)
        qToLittleEndian(values[i], raw.data() + i * sizeof(float));
    return raw.toBase64();
}

std::optional<QString> inputText(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    if (value.isArray())  // a token array
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    if (value.isDouble())
        return QString::number(value.toDouble());
    return std::nullopt;
}

QString partsText(const QJsonObject &content)
{
    QString text;
    for (const QJsonValue &part : content.value(QLatin1String("parts")).toArray())
        text += part.toObject().value(QLatin1String("text")).toString();
    return text;
}

// Reads an optional positive dimension count; 0 when absent, -1 when invalid.
int readDimensions(const QJsonValue &value)
{
    if (value.isUndefined() || value.isNull())
        return 0;
    const int dimensions = value.toInt(-1);
    return dimensions >= 1 && dimensions <= kMaxEmbeddingDimensions ? dimensions : -1;
}

RequestParse refuse(int status, const QString &message)
{
    return {std::nullopt, message, status};
}

} // namespace

std::vector<float> embeddingVector(const QString &text, int dimensions)
{
    const quint64 hash = stableHash(text.toUtf8());
    const quint32 seed[2] = {quint32(hash), quint32(hash >> 32)};
    QRandomGenerator random(seed, 2);
    std::vector<float> values(size_t(qMax(0, dimensions)));
    double norm = 0;
    for (float &value : values) {
        value = float(random.generateDouble() * 2.0 - 1.0);
        norm += double(value) * double(value);
    }
    norm = std::sqrt(norm);
    if (norm > 0) {
        for (float &value : values)
            value = float(double(value) / norm);
    }
    return values;
}

RequestParse OpenAiEmbeddingFormat::parseRequest(const http::HttpRequest &http, QByteArrayView) const
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(http.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return refuse(400, QStringLiteral("request body is not a JSON object"));
    const QJsonObject root = document.object();
    ChatRequest request;
    request.model = root.value(QLatin1String("model")).toString();
    if (request.model.isEmpty())
        return refuse(400, QStringLiteral("you must provide a model parameter"));
    const QJsonValue input = root.value(QLatin1String("input"));
    if (input.isString()) {
        request.embeddingInputs.append(input.toString());
    } else if (input.isArray()) {
        const QJsonArray items = input.toArray();
        // A flat array of numbers is one token array; otherwise each element is one input.
        if (!items.isEmpty() && items.at(0).isDouble()) {
            request.embeddingInputs.append(*inputText(input));
        } else {
            for (const QJsonValue &item : items) {
                const std::optional<QString> text = inputText(item);
                if (!text)
                    return refuse(400, QStringLiteral("input: expected strings or token arrays"));
                request.embeddingInputs.append(*text);
            }
        }
    }
    if (request.embeddingInputs.isEmpty() || request.embeddingInputs.contains(QString()))
        return refuse(400, QStringLiteral("input: must be a non-empty string or a non-empty list"));
    request.dimensions = readDimensions(root.value(QLatin1String("dimensions")));
    if (request.dimensions < 0)
        return refuse(400, QStringLiteral("dimensions: expected an integer from 1 to %1").arg(kMaxEmbeddingDimensions));
    if (request.dimensions == 0)
        request.dimensions = kOpenAiDefaultDimensions;
    const QString encoding = root.value(QLatin1String("encoding_format")).toString(QStringLiteral("float"));
    if (encoding != u"float" && encoding != u"base64")
        return refuse(400, QStringLiteral("encoding_format: expected float or base64"));
    request.base64 = encoding == u"base64";
    request.promptTokens = promptTokens(request.embeddingInputs);
    return {std::move(request), {}};
}

QByteArray OpenAiEmbeddingFormat::completionBody(const ChatReply &reply) const
{
    QByteArray out("{\"object\":\"list\",\"data\":[");
    for (qsizetype i = 0; i < reply.embeddingInputs.size(); ++i) {
        if (i > 0)
            out.append(',');
        out.append("{\"object\":\"embedding\",\"index\":").append(QByteArray::number(i)).append(",\"embedding\":");
        const std::vector<float> values = embeddingVector(reply.embeddingInputs.at(i), reply.dimensions);
        if (reply.base64)
            out.append('"').append(base64Values(values)).append('"');
        else
            appendValues(out, values);
        out.append('}');
    }
    out.append("],\"model\":");
    appendJsonString(out, reply.model);
    const QByteArray tokens = QByteArray::number(reply.promptTokens);
    out.append(",\"usage\":{\"prompt_tokens\":").append(tokens).append(",\"total_tokens\":").append(tokens).append("}}");
    return out;
}

QByteArray OpenAiEmbeddingFormat::emptyCompletionBody(const ChatReply &reply) const
{
    QByteArray out("{\"object\":\"list\",\"data\":[],\"model\":");
    appendJsonString(out, reply.model);
    out.append(",\"usage\":{\"prompt_tokens\":0,\"total_tokens\":0}}");
    return out;
}

RequestParse GeminiEmbeddingFormat::parseRequest(const http::HttpRequest &http, QByteArrayView endpoint) const
{
    if (std::optional<RequestParse> refused = GeminiFormat::checkKey(http))
        return *refused;
    const std::optional<GeminiModelCall> call = parseGeminiModelCall(endpoint);
    if (!call || call->model.isEmpty())
        return refuse(400, QStringLiteral("model is not specified"));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(http.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return refuse(400, QStringLiteral("Invalid JSON payload received."));
    const QJsonObject root = document.object();
    ChatRequest request;
    request.model = call->model;
    QJsonArray requests;
    if (m_batch) {
        requests = root.value(QLatin1String("requests")).toArray();
        if (requests.isEmpty())
            return refuse(400, QStringLiteral("* BatchEmbedContentsRequest.requests: requests is not specified"));
    } else {
        requests.append(root);
    }
    for (const QJsonValue &item : requests) {
        const QString text = partsText(item.toObject().value(QLatin1String("content")).toObject());
        if (text.isEmpty())
            return refuse(400, QStringLiteral("* EmbedContentRequest.content: contents is not specified"));
        request.embeddingInputs.append(text);
    }
    request.dimensions = readDimensions(requests.at(0).toObject().value(QLatin1String("outputDimensionality")));
    if (request.dimensions < 0)
        return refuse(400, QStringLiteral("outputDimensionality: expected an integer from 1 to %1").arg(kMaxEmbeddingDimensions));
    if (request.dimensions == 0)
        request.dimensions = kGeminiDefaultDimensions;
    request.promptTokens = promptTokens(request.embeddingInputs);
    return {std::move(request), {}};
}

QByteArray GeminiEmbeddingFormat::completionBody(const ChatReply &reply) const
{
    QByteArray out(m_batch ? "{\"embeddings\":[" : "{\"embedding\":");
    for (qsizetype i = 0; i < reply.embeddingInputs.size(); ++i) {
        if (i > 0)
            out.append(',');
        out.append("{\"values\":");
        appendValues(out, embeddingVector(reply.embeddingInputs.at(i), reply.dimensions));
        out.append('}');
    }
    out.append(m_batch ? "]}" : "}");
    return out;
}

QByteArray GeminiEmbeddingFormat::emptyCompletionBody(const ChatReply &) const
{
    return m_batch ? QByteArrayLiteral("{\"embeddings\":[]}") : QByteArrayLiteral("{\"embedding\":{\"values\":[]}}");
}

} // namespace sy::sim
