#include "api/gemini/GeminiCodec.h"

#include "api/gemini/GeminiRequestParser.h"
#include "api/gemini/GeminiStreamWriter.h"
#include "api/gemini/GeminiWire.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::gemini {

QString responseId(const QString &answerId, const QByteArray &requestId)
{
    return answerId.isEmpty() ? QString::fromLatin1(requestId) : answerId;
}

std::variant<CanonicalRequest, ApiError> GeminiCodec::parse(const QJsonObject &body) const
{
    return parseRequest(body);
}

QByteArray GeminiCodec::answerBody(const CanonicalAnswer &answer, const WriterOptions &options) const
{
    QJsonArray parts;
    bool hasToolCall = false;
    for (const ContentPart &part : answer.parts) {
        if (const std::optional<QJsonObject> json = answerPartJson(part)) {
            parts.append(*json);
            hasToolCall = hasToolCall || part.kind == ContentPart::Kind::ToolCall;
        }
    }
    const StopReason reason = answer.stopReason == StopReason::Unknown && hasToolCall ? StopReason::ToolUse : answer.stopReason;
    const QJsonObject candidate{
        {"content", QJsonObject{{"role", "model"}, {"parts", parts}}},
        {"finishReason", finishReasonName(reason)},
        {"index", 0},
    };
    const QJsonObject body{
        {"candidates", QJsonArray{candidate}},
        {"usageMetadata", usageMetadataJson(answer.usage)},
        {"modelVersion", options.publicModel},
        {"responseId", responseId(answer.id, options.requestId)},
    };
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

std::unique_ptr<StreamWriter> GeminiCodec::streamWriter(const WriterOptions &options) const
{
    return std::make_unique<GeminiStreamWriter>(options);
}

QByteArray GeminiCodec::errorBody(const ApiError &error) const
{
    return gemini::errorBody(error);
}

} // namespace sy::api::gemini
