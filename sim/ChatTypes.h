#pragma once
// Format-neutral view of one request and of the answer the simulator gives to it. Each
// WireFormat reads its own request JSON into a ChatRequest and writes a ChatReply in its own
// wire shape. Chat requests and embedding requests share these types (an embedding request has
// embeddingInputs and never streams). Plain data; any thread.
#include <QByteArray>
#include <QByteArrayView>
#include <QString>
#include <QStringList>
#include <vector>

namespace sy::sim {

struct ChatRequest {
    QString model;
    bool stream = false;
    bool includeUsage = false;  // OpenAI stream_options.include_usage
    // Gemini :streamGenerateContent without ?alt=sse: the stream is one JSON array sent in pieces.
    bool jsonArrayStream = false;
    int maxTokens = 0;          // output cap asked by the client; 0 = none
    int promptTokens = 1;       // characters of all message texts / 4, at least 1
    // Name of the first tool the request declares (empty: no tools), and whether the last turn is
    // the user's text (not a tool result): together they ask for a tool call (docs/sim.md).
    QString firstToolName;
    bool lastTurnIsUserText = false;
    // Embedding requests: the texts to embed (in order), the vector length, and OpenAI's
    // encoding_format base64 (little-endian float32) instead of JSON numbers.
    QStringList embeddingInputs;
    int dimensions = 0;
    bool base64 = false;
};

struct ChatReply {
    QByteArray id;              // "chatcmpl-sim-42"
    qint64 createdSeconds = 0;  // Unix time
    QString model;              // echoed from the request
    // Generated text, one word per token. The views point at static storage.
    std::vector<QByteArrayView> words;
    int promptTokens = 1;
    // "stop"; "length" when max_tokens cut the answer; "tool_calls" when the answer is a tool
    // call (OpenAI's names; each format maps them to its own).
    QByteArrayView finishReason = "stop";
    bool includeUsage = false;
    bool jsonArrayStream = false;
    // A tool call answer: the tool's name and its arguments as JSON text. Empty: no tool call.
    QString toolName;
    QByteArray toolArguments;
    // Copied from the embedding request.
    QStringList embeddingInputs;
    int dimensions = 0;
    bool base64 = false;

    bool hasToolCall() const { return !toolName.isEmpty(); }
    // Words, plus for a tool call 1 + its argument characters / 4.
    int completionTokens() const;
    // The number at the end of id ("42"), for the ids of other formats ("msg_sim_42").
    QByteArrayView serial() const;
    // Words joined by single spaces.
    QByteArray text() const;
    // Word `index` as a stream delta: with a leading space except the first, so that the deltas
    // concatenate to text().
    QByteArray delta(qsizetype index) const;
};

} // namespace sy::sim
