#include "api/openai/OpenAiPassThrough.h"

#include "api/JsonMembers.h"
#include "api/openai/ChatBodies.h"
#include "core/JsonText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sy::api::openai {

namespace {

// The text of the first choice's message or delta (content logging only).
QString choiceText(QByteArrayView json, const char *member)
{
    const QJsonObject choice = QJsonDocument::fromJson(json.toByteArray()).object().value("choices").toArray().at(0).toObject();
    return choice.value(QLatin1String(member)).toObject().value("content").toString();
}

} // namespace

OpenAiPassThrough::OpenAiPassThrough(ClientRequest client, WriterOptions options)
    : m_client(std::move(client))
    , m_options(std::move(options))
{
}

WireRequest OpenAiPassThrough::request(const QString &upstreamModel, const QString &credential)
{
    WireRequest wire;
    // Literals: static data, no allocation per request.
    wire.path = QByteArrayLiteral("/chat/completions");
    wire.headers.reserve(3);
    wire.headers.emplaceBack(QByteArrayLiteral("content-type"), QByteArrayLiteral("application/json"));
    wire.headers.emplaceBack(QByteArrayLiteral("accept"), m_client.stream ? QByteArrayLiteral("text/event-stream")
                                                                          : QByteArrayLiteral("application/json"));
    if (!credential.isEmpty())
        wire.headers.emplaceBack(QByteArrayLiteral("authorization"), "Bearer " + credential.toUtf8());
    wire.body = upstreamRequestBody(m_client, upstreamModel);
    return wire;
}

TranslatedAnswer OpenAiPassThrough::answer(QByteArrayView upstreamBody)
{
    PlainAnswer plain = rewritePlainAnswer(upstreamBody, m_options.publicModel);
    TranslatedAnswer answer;
    answer.problem = plain.problem;
    answer.usage = plain.usage.canonical();
    answer.body = std::move(plain.body);
    if (m_options.captureText && answer.problem.isEmpty())
        answer.text = choiceText(answer.body, "message");
    return answer;
}

TranslatedEvent OpenAiPassThrough::event(const SseEvent &event)
{
    TranslatedEvent out;
    if (event.data == "[DONE]")
        return out;  // the gateway writes its own [DONE] when the upstream body ends cleanly
    if (m_publicModelJson.isEmpty())
        m_publicModelJson = jsonString(m_options.publicModel.toUtf8());
    const StreamChunk chunk = rewriteStreamChunkAs(event.data, m_options.publicModel, m_publicModelJson, m_options.includeUsage);
    if (chunk.malformed || chunk.isError) {
        out.malformed = chunk.malformed;
        out.upstreamError = chunk.isError;
        if (chunk.isError) {
            const QJsonValue error = QJsonDocument::fromJson(event.data).object().value("error");
            out.errorMessage = error.isObject() ? error.toObject().value("message").toString() : error.toString();
        }
        return out;
    }
    if (chunk.usage)
        out.usage = chunk.usage->canonical();
    out.content = chunk.hasChoices;
    if (chunk.data.isEmpty())
        return out;
    if (m_options.captureText && chunk.hasChoices)
        out.text = choiceText(chunk.data, "delta");
    out.out.reserve(chunk.data.size() + 8);
    json::appendLiteral(out.out, "data: ");
    json::appendRaw(out.out, chunk.data.constData(), chunk.data.size());
    json::appendLiteral(out.out, "\n\n");
    return out;
}

QByteArray OpenAiPassThrough::endOfStream()
{
    return QByteArrayLiteral("data: [DONE]\n\n");
}

QByteArray OpenAiPassThrough::interrupted(const QString &reason)
{
    return interruptedStreamEvent(reason);
}

QByteArray interruptedStreamEvent(const QString &reason)
{
    const QJsonObject error{{"error", QJsonObject{{"code", "stream_interrupted"}, {"message", reason}}}};
    return "data: " + QJsonDocument(error).toJson(QJsonDocument::Compact) + "\n\n";
}

} // namespace sy::api::openai
