#include "api/responses/ResponsesCodec.h"

#include "api/openai/OpenAiErrors.h"
#include "api/responses/ResponseIds.h"
#include "api/responses/ResponsesRequestParser.h"
#include "api/responses/ResponsesStreamWriter.h"
#include "api/responses/ResponsesWire.h"

#include <QDateTime>
#include <QJsonDocument>

namespace sy::api::responses {

std::variant<CanonicalRequest, ApiError> ResponsesCodec::parse(const QJsonObject &body) const
{
    return parseResponsesRequest(body);
}

QByteArray ResponsesCodec::answerBody(const CanonicalAnswer &answer, const WriterOptions &options) const
{
    ResponseState state;
    state.id = responseIdFor(options.requestId);
    state.createdAt = QDateTime::currentSecsSinceEpoch();
    state.status = statusFor(answer.stopReason);
    state.model = options.publicModel;
    state.output = outputItems(answer.parts, state.id, QStringLiteral("completed"));
    state.usage = usageJson(answer.usage);
    state.incompleteDetails = incompleteDetailsFor(answer.stopReason);
    return QJsonDocument(responseObject(state, options.request.get())).toJson(QJsonDocument::Compact);
}

std::unique_ptr<StreamWriter> ResponsesCodec::streamWriter(const WriterOptions &options) const
{
    return std::make_unique<ResponsesStreamWriter>(options);
}

QByteArray ResponsesCodec::errorBody(const ApiError &error) const
{
    return openai::errorBody(error.status, error.message, error.code, error.param, error.metadata);
}

} // namespace sy::api::responses
