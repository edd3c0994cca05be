#pragma once
// Format-neutral view of one chat request and of the answer the simulator gives to it. Each
// WireFormat reads its own request JSON into a ChatRequest and writes a ChatReply in its own
// wire shape. Plain data; any thread.
#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <vector>

namespace sy::sim {

struct ChatRequest {
    QString model;
    bool stream = false;
    bool includeUsage = false;  // OpenAI stream_options.include_usage
    int maxTokens = 0;          // output cap asked by the client; 0 = none
    int promptTokens = 1;       // characters of all message texts / 4, at least 1
};

struct ChatReply {
    QByteArray id;              // "chatcmpl-sim-42"
    qint64 createdSeconds = 0;  // Unix time
    QString model;              // echoed from the request
    // Generated text, one word per token. The views point at static storage.
    std::vector<QByteArrayView> words;
    int promptTokens = 1;
    QByteArrayView finishReason = "stop";  // "stop", or "length" when max_tokens cut the answer
    bool includeUsage = false;

    int completionTokens() const { return int(words.size()); }
    // Words joined by single spaces.
    QByteArray text() const;
    // Word `index` as a stream delta: with a leading space except the first, so that the deltas
    // concatenate to text().
    QByteArray delta(qsizetype index) const;
};

} // namespace sy::sim
