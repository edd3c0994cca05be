#pragma once
// Canonical: the one model of a chat request, an answer and a stream that every client format and
// every channel format translates to and from (ARCHITECTURE.md "Formats"). It holds what the
// formats share; what only one format knows travels in `extra` members where a same-format
// pass-through would keep it anyway, and is otherwise dropped (documented in docs/gateway.md).
//
// Plain data, no behaviour: any thread.
#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace sy::api {

// The wire families a client or a channel speaks.
enum class Format { OpenAiChat, Anthropic, Gemini, OpenAiResponses };

// "openai" / "anthropic" / "gemini" (a channel's `format`); nullopt for anything else.
std::optional<Format> channelFormatFromName(const QString &name);
const char *formatName(Format format);

// Tokens of one answer. Cache tokens are part of neither count in Anthropic's wire format and
// part of the prompt count in OpenAI's; here they are kept apart: inputTokens excludes them.
struct TokenUsage {
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    qint64 cacheReadTokens = 0;
    qint64 cacheWriteTokens = 0;
    bool known = false;

    // Everything the prompt cost, as OpenAI counts prompt_tokens.
    qint64 promptTokensTotal() const { return inputTokens + cacheReadTokens + cacheWriteTokens; }
};

enum class StopReason { Unknown, EndTurn, MaxTokens, ToolUse, StopSequence, ContentFilter, Error };

struct ContentPart {
    enum class Kind { Text, Image, ToolCall, ToolResult, Thinking };
    Kind kind = Kind::Text;

    QString text;              // Text, Thinking; ToolResult: its content when it is text
    QString signature;         // Thinking: the provider's signature (Anthropic), kept for the next turn
    bool redacted = false;     // Thinking: Anthropic redacted_thinking; its opaque data is in `signature`

    // Image: either a URL (http(s) or a data: URL as the client sent it) or base64 bytes.
    QString imageUrl;
    QString mediaType;         // e.g. image/png (with base64 data)
    QByteArray base64Data;

    // ToolCall: the call; ToolResult: toolCallId names the call it answers.
    QString toolCallId;
    QString toolName;
    QByteArray argumentsJson;  // ToolCall: the arguments object as JSON text
    bool isError = false;      // ToolResult: the tool failed
    QList<ContentPart> resultParts;   // ToolResult with non-text content (text, images)

    QJsonObject cacheControl;  // Anthropic's cache_control on this block, when given

    static ContentPart textPart(const QString &text)
    {
        ContentPart p;
        p.text = text;
        return p;
    }
};

enum class Role { User, Assistant };

// One turn. Tool results are parts of a User turn (as Anthropic and Gemini have them); the
// OpenAI codec maps them to and from `tool` messages.
struct Message {
    Role role = Role::User;
    QList<ContentPart> parts;
};

struct Tool {
    QString name;
    QString description;
    QJsonObject inputSchema;   // JSON Schema of the arguments
    QJsonObject cacheControl;
};

struct ToolChoice {
    enum class Mode { Unset, Auto, None, Required, Named };
    Mode mode = Mode::Unset;
    QString name;                      // Named
    bool disableParallel = false;      // at most one call per turn
};

struct Reasoning {
    QString effort;                    // "low" | "medium" | "high" (OpenAI); empty when not given
    std::optional<qint64> budgetTokens;   // Anthropic's thinking.budget_tokens
};

struct CanonicalRequest {
    QString model;                     // as the client named it (routing resolves it)
    QList<ContentPart> system;         // text parts
    QList<Message> messages;
    QList<Tool> tools;
    ToolChoice toolChoice;
    std::optional<double> temperature;
    std::optional<double> topP;
    std::optional<qint64> topK;
    std::optional<qint64> maxTokens;   // the answer's limit; nullopt = the client gave none
    QStringList stop;
    bool stream = false;
    QJsonObject responseFormat;        // OpenAI's response_format object when given
    std::optional<Reasoning> reasoning;
    QString user;                      // OpenAI `user`, Anthropic metadata.user_id
    // OpenAI Responses: the stored response this request continues (the service resolves it and
    // puts its turns before `messages`), and whether this one may be stored for the next (`store`).
    QString previousResponseId;
    bool store = true;
};

struct CanonicalAnswer {
    QString id;
    QString model;
    QList<ContentPart> parts;          // Text, Thinking, ToolCall
    StopReason stopReason = StopReason::Unknown;
    QString stopSequence;
    TokenUsage usage;
};

// One step of a stream in canonical form. A stream is: Start, then for each content block
// BlockStart, Delta..., BlockStop (blocks may not interleave), then Finish, then the end of the
// stream (not an event: the writer's end()).
struct StreamEvent {
    enum class Kind { Start, BlockStart, Delta, BlockStop, Finish };
    Kind kind = Kind::Start;
    int index = 0;                     // content block index (BlockStart, Delta, BlockStop)
    ContentPart::Kind blockKind = ContentPart::Kind::Text;   // BlockStart, Delta
    QString text;                      // Delta of Text / Thinking
    QByteArray argumentsDelta;         // Delta of ToolCall: a piece of the arguments JSON
    QString toolCallId;                // BlockStart of ToolCall
    QString toolName;                  // BlockStart of ToolCall
    QString signature;                 // Delta of Thinking: signature piece (Anthropic)
    QString id;                        // Start: the answer id
    QString model;                     // Start
    StopReason stopReason = StopReason::Unknown;   // Finish
    QString stopSequence;              // Finish
    TokenUsage usage;                  // Start (input so far) and Finish (final); known when given
};

} // namespace sy::api
