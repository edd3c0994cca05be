#pragma once
// RequestContent: the message contents of one request, kept with its log record only when the
// configuration opts in (settings.log_message_content; off by default, SPEC §10). The request's
// `messages` and the answer's text (a stream's text assembled from its deltas), each capped at
// kMaxContentBytes of UTF-8 and marked when cut. Never headers, keys or credentials: only what
// the client wrote in `messages` and what the model answered.
//
// Thread: values; ContentCapture belongs to one exchange (the gateway thread).
#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>

#include <optional>

namespace sy::service {

inline constexpr qsizetype kMaxContentBytes = 64 * 1024;

struct RequestContent {
    QByteArray request;            // the `messages` array as compact JSON (UTF-8), maybe cut
    bool requestTruncated = false;
    QByteArray response;           // the answer's text (UTF-8), maybe cut
    bool responseTruncated = false;

    // {"request": "...", "request_truncated": false, "response": "...", "response_truncated": false}
    QJsonObject toJson() const;
    QByteArray toJsonBytes() const;
    // The inverse of toJsonBytes(); nullopt for anything else (e.g. an empty column).
    static std::optional<RequestContent> fromJsonBytes(const QByteArray &json);
};

// Collects a request's content while its exchange runs.
class ContentCapture {
public:
    // `messages`: the request body's `messages` value.
    void setRequest(const QJsonValue &messages);
    // A plain answer (OpenAI Chat Completions JSON): the first choice's message content.
    void setPlainAnswer(const QByteArray &answerBody);
    // One stream chunk (its JSON data): appends the first choice's delta content.
    void addStreamChunk(const QByteArray &chunkData);
    // Answer text already extracted by the exchange's translator (any client format).
    void setAnswerText(const QString &text);
    void appendAnswerText(const QString &text) { appendAnswer(text); }
    // Forgets the answer so far (the attempt failed before anything reached the client).
    void resetAnswer();
    const RequestContent &content() const { return m_content; }

private:
    void appendAnswer(const QString &text);

    RequestContent m_content;
};

// `text` cut to at most `maxBytes` of UTF-8 without splitting a character; `truncated` set when cut.
QByteArray capUtf8(const QByteArray &text, qsizetype maxBytes, bool &truncated);

} // namespace sy::service
