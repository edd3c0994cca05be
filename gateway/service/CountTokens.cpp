#include "service/CountTokens.h"

#include "api/JsonMembers.h"
#include "service/ChannelTransport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>

namespace sy::service {

namespace {

qint64 charactersOf(const QJsonValue &value)
{
    if (value.isString())
        return value.toString().size();
    if (value.isArray()) {
        qint64 n = 0;
        for (const QJsonValue &item : value.toArray()) {
            const QJsonObject block = item.toObject();
            if (block.value("type").toString() == QLatin1String("text"))
                n += block.value("text").toString().size();
            else if (block.contains("content"))
                n += charactersOf(block.value("content"));
            else if (block.contains("input"))
                n += QJsonDocument(block.value("input").toObject()).toJson(QJsonDocument::Compact).size();
            else if (item.isString())
                n += item.toString().size();
        }
        return n;
    }
    return 0;
}

void answer(http::ResponseSink &sink, const QByteArray &requestId, qint64 tokens, const char *source)
{
    sink.respond(200, {{"Content-Type", "application/json"}, {"x-request-id", requestId}, {"x-switchyard-token-count", source}},
                 QJsonDocument(QJsonObject{{"input_tokens", double(tokens)}}).toJson(QJsonDocument::Compact));
}

// One count_tokens call to an anthropic channel; falls back to the estimate on any failure.
class UpstreamCount final : public QObject, private upstream::StreamHandler {
public:
    UpstreamCount(qint64 estimate, QByteArray requestId, std::shared_ptr<http::ResponseSink> sink,
                  OutageInjector &upstream, std::function<void(int)> finished)
        : m_estimate(estimate), m_requestId(std::move(requestId)), m_sink(std::move(sink)), m_upstream(upstream),
          m_finished(std::move(finished))
    {
        m_sink->onClientGone([this] { end(499); });
    }

    void send(upstream::UpstreamRequest request) { m_transfer = m_upstream.send(std::move(request), this, std::nullopt); m_active = true; }

private:
    void onHeaders(int status, const http::HeaderList &) override { m_status = status; }
    void onChunk(const QByteArray &bytes) override
    {
        m_body += bytes;
        if (m_body.size() > 1024 * 1024)
            fallBack();
    }
    void onComplete() override
    {
        m_active = false;
        const QJsonObject object = QJsonDocument::fromJson(m_body).object();
        if (m_status == 200 && object.value("input_tokens").isDouble()) {
            answer(*m_sink, m_requestId, qint64(object.value("input_tokens").toDouble()), "upstream");
            return end(200);
        }
        fallBack();
    }
    void onError(const upstream::UpstreamError &) override
    {
        m_active = false;
        fallBack();
    }
    void fallBack()
    {
        answer(*m_sink, m_requestId, m_estimate, "estimate");
        end(200);
    }
    void end(int status)
    {
        if (m_done)
            return;
        m_done = true;
        m_sink->onClientGone(nullptr);
        if (std::exchange(m_active, false))
            m_upstream.cancel(m_transfer);
        if (m_finished)
            m_finished(status);
        deleteLater();
    }

    qint64 m_estimate;
    QByteArray m_requestId;
    std::shared_ptr<http::ResponseSink> m_sink;
    OutageInjector &m_upstream;
    std::function<void(int)> m_finished;
    upstream::TransferId m_transfer = 0;
    bool m_active = false;
    bool m_done = false;
    int m_status = 0;
    QByteArray m_body;
};

} // namespace

qint64 estimateInputTokens(const QJsonObject &body)
{
    qint64 characters = charactersOf(body.value("system"));
    for (const QJsonValue &message : body.value("messages").toArray())
        characters += charactersOf(message.toObject().value("content"));
    if (body.value("tools").isArray())
        characters += QJsonDocument(body.value("tools").toArray()).toJson(QJsonDocument::Compact).size();
    return std::max<qint64>(1, (characters + 3) / 4);
}

void countTokens(const QJsonObject &body, const QByteArray &rawBody, const Workspace &workspace,
                 const QByteArray &anthropicVersion, const QByteArray &requestId,
                 std::shared_ptr<http::ResponseSink> sink, OutageInjector &upstream,
                 std::function<void(int status)> finished)
{
    const QString model = body.value("model").toString();
    const qint64 estimate = estimateInputTokens(body);
    for (const ChannelRoute &route : workspace.routesFor(model)) {
        const config::Channel &channel = *route.channel;
        if (channel.format != QLatin1String("anthropic"))
            continue;
        upstream::UpstreamRequest request;
        request.url = channel.baseUrl.toUtf8() + "/messages/count_tokens";
        request.headers = {{"content-type", "application/json"},
                           {"anthropic-version", anthropicVersion.isEmpty() ? QByteArray("2023-06-01") : anthropicVersion}};
        if (!channel.credentials.isEmpty())
            request.headers.append({"x-api-key", channel.credentials.first().toUtf8()});
        const auto members = api::topLevelMembers(rawBody);
        const QByteArray upstreamName = (route.model->upstream.isEmpty() ? model : route.model->upstream).toUtf8();
        request.body = members ? api::rewriteMembers(rawBody, *members, {{"model", api::jsonString(upstreamName)}, {"models", {}}, {"provider", {}}})
                               : rawBody;
        request.connectTimeout = channel.timeouts.connect;
        request.firstByteTimeout = channel.timeouts.firstByte;
        request.idleTimeout = channel.timeouts.idle;
        applyChannel(channel, channel.credentials.isEmpty() ? QString() : channel.credentials.first(), request);
        auto *call = new UpstreamCount(estimate, requestId, std::move(sink), upstream, std::move(finished));
        call->send(std::move(request));
        return;
    }
    answer(*sink, requestId, estimate, "estimate");
    finished(200);
}

} // namespace sy::service

namespace sy::service {

qint64 estimateInputTokens(const api::CanonicalRequest &request)
{
    qint64 characters = 0;
    const auto countParts = [&](const QList<api::ContentPart> &parts, const auto &self) -> void {
        for (const api::ContentPart &part : parts) {
            characters += part.text.size() + part.argumentsJson.size() + part.toolName.size();
            self(part.resultParts, self);
        }
    };
    countParts(request.system, countParts);
    for (const api::Message &message : request.messages)
        countParts(message.parts, countParts);
    for (const api::Tool &tool : request.tools)
        characters += tool.name.size() + tool.description.size()
            + QJsonDocument(tool.inputSchema).toJson(QJsonDocument::Compact).size();
    return std::max<qint64>(1, (characters + 3) / 4);
}

} // namespace sy::service
