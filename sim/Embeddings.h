#pragma once
// Embeddings: the simulator's embedding endpoints. OpenAI `POST /v1/embeddings` and Gemini
// `:embedContent` / `:batchEmbedContents` read their texts into a ChatRequest and write the
// vectors of the planned ChatReply; ChatExchange plays their latency and scripted failures like a
// plain chat answer (they never stream). Errors and model lists are those of their API family.
// Thread: stateless; any thread.
#include "GeminiFormat.h"
#include "OpenAiFormat.h"

#include <vector>

namespace sy::sim {

// A unit-length vector of `dimensions` values, seeded from the text only: the same text always
// gives the same vector, different texts different ones.
std::vector<float> embeddingVector(const QString &text, int dimensions);

inline constexpr int kMaxEmbeddingDimensions = 8192;

// What embedding formats share: no streams (the stream methods write nothing).
class EmbeddingFormat : public WireFormat {
public:
    QByteArray streamStart(const ChatReply &) const override { return {}; }
    QByteArray streamContent(const ChatReply &, qsizetype) const override { return {}; }
    QByteArray streamEnd(const ChatReply &) const override { return {}; }
    QByteArray streamEmpty(const ChatReply &) const override { return {}; }
    QByteArray malformedEvent(const ChatReply &) const override { return {}; }
    QByteArray streamError(const ChatReply &, qsizetype, int, const QString &) const override { return {}; }
};

// POST /v1/embeddings: `input` a string or a list (strings, or token arrays taken as their JSON
// text), `dimensions` (default 1536), `encoding_format` float | base64.
class OpenAiEmbeddingFormat final : public EmbeddingFormat {
public:
    RequestParse parseRequest(const http::HttpRequest &request, QByteArrayView endpoint) const override;
    QByteArray completionBody(const ChatReply &reply) const override;
    QByteArray emptyCompletionBody(const ChatReply &reply) const override;
    QByteArray errorBody(int status, const QString &message) const override { return m_family.errorBody(status, message); }
    QByteArray modelList(const QStringList &models, const QString &owner) const override { return m_family.modelList(models, owner); }

private:
    OpenAiFormat m_family;
};

// POST /v1beta/models/{model}:embedContent (`{"content":{"parts":[...]}}` -> `{"embedding":
// {"values":[...]}}`) or, with `batch`, :batchEmbedContents (`{"requests":[...]}` ->
// `{"embeddings":[...]}`). `outputDimensionality` (of the first request in a batch) sets the
// length, default 768.
class GeminiEmbeddingFormat final : public EmbeddingFormat {
public:
    explicit GeminiEmbeddingFormat(bool batch) : m_batch(batch) {}
    RequestParse parseRequest(const http::HttpRequest &request, QByteArrayView endpoint) const override;
    QByteArray completionBody(const ChatReply &reply) const override;
    QByteArray emptyCompletionBody(const ChatReply &reply) const override;
    QByteArray errorBody(int status, const QString &message) const override { return m_family.errorBody(status, message); }
    QByteArray modelList(const QStringList &models, const QString &owner) const override { return m_family.modelList(models, owner); }

private:
    bool m_batch;
    GeminiFormat m_family;
};

} // namespace sy::sim
