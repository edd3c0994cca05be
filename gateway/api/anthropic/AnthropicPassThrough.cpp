#include "api/anthropic/AnthropicPassThrough.h"

#include "api/JsonMembers.h"
#include "api/anthropic/AnthropicWire.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::api::anthropic {

namespace {

QJsonObject parseObject(QByteArrayView json)
{
    return QJsonDocument::fromJson(json.toByteArray()).object();
}

bool looksLikeObject(QByteArrayView data)
{
    for (const char c : data) {
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            return c == '{';
    }
    return false;
}

// The event framed again as it came: `event:` only when it had one, one data line per line.
QByteArray frame(const QByteArray &name, const QByteArray &data)
{
    QByteArray out;
    out.reserve(name.size() + data.size() + 16);
    if (!name.isEmpty())
        out += "event: " + name + '\n';
    for (const QByteArray &line : data.split('\n'))
        out += "data: " + line + '\n';
    out += '\n';
    return out;
}

// The string value of a top-level `type` member, for a stream without `event:` names.
QByteArray typeOf(QByteArrayView data)
{
    const auto members = topLevelMembers(data);
    if (!members)
        return {};
    const JsonMember *type = findMember(*members, "type");
    if (!type)
        return {};
    const QByteArrayView value = memberValue(data, *type);
    return value.size() >= 2 && value.front() == '"' ? value.sliced(1, value.size() - 2).toByteArray() : QByteArray();
}

// mergeUsage() of the usage object `text` read in place, when its members are all counts or
// null (what a plain answer's usage usually is); false, with `into` untouched, for anything else,
// which a full parse reads. The last of repeated keys wins, as in a QJsonObject.
bool mergeCountsInPlace(QByteArrayView text, TokenUsage &into)
{
    const auto members = topLevelMembers(text);
    if (!members || hasEscapedKey(*members))
        return false;
    for (const JsonMember &member : *members) {
        const QByteArrayView value = memberValue(text, member);
        if (value != "null" && !plainCount(value))
            return false;
    }
    TokenUsage usage = into;
    const auto take = [&](QByteArrayView key, qint64 &field) {
        if (const JsonMember *member = findMember(*members, key)) {
            if (const std::optional<qint64> count = plainCount(memberValue(text, *member))) {
                field = *count;
                usage.known = true;
            }
        }
    };
    take("input_tokens", usage.inputTokens);
    take("output_tokens", usage.outputTokens);
    take("cache_creation_input_tokens", usage.cacheWriteTokens);
    take("cache_read_input_tokens", usage.cacheReadTokens);
    into = usage;
    return true;
}

} // namespace

AnthropicPassThrough::AnthropicPassThrough(ClientRequest client, WriterOptions options)
    : m_client(std::move(client)), m_options(std::move(options))
{
}

WireRequest AnthropicPassThrough::request(const QString &upstreamModel, const QString &credential)
{
    WireRequest wire;
    // Literals: static data, no allocation per request.
    wire.path = QByteArrayLiteral("/messages");
    wire.headers.reserve(4);
    wire.headers.emplaceBack(QByteArrayLiteral("content-type"), QByteArrayLiteral("application/json"));
    wire.headers.emplaceBack(QByteArrayLiteral("accept"), m_client.stream ? QByteArrayLiteral("text/event-stream")
                                                                          : QByteArrayLiteral("application/json"));
    if (!credential.isEmpty())
        wire.headers.emplaceBack(QByteArrayLiteral("x-api-key"), credential.toUtf8());
    bool versionGiven = false;
    for (const auto &[name, value] : m_client.forwardHeaders) {
        const QByteArray lower = name.toLower();
        if (lower == "anthropic-version" || lower == "anthropic-beta") {
            wire.headers.emplaceBack(lower, value);
            versionGiven = versionGiven || lower == "anthropic-version";
        }
    }
    if (!versionGiven)
        wire.headers.emplaceBack("anthropic-version", kApiVersion);

    const QByteArray model = jsonString(upstreamModel.toUtf8());
    const auto members = topLevelMembers(m_client.raw);
    if (!members || hasEscapedKey(*members)) {
        // A key written with escapes could be `model` in disguise: only a parser sees it.
        QJsonObject body = m_client.body;
        body.insert("model", upstreamModel);
        body.remove("models");
        body.remove("provider");
        wire.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
        return wire;
    }
    std::vector<JsonEdit> edits{{"models", {}}, {"provider", {}}};
    std::vector<QByteArray> appended;
    if (findMember(*members, "model"))
        edits.push_back({"model", model});
    else
        appended.push_back("\"model\":" + model);
    wire.body = rewriteMembers(m_client.raw, *members, edits, appended);
    return wire;
}

TranslatedAnswer AnthropicPassThrough::answer(QByteArrayView upstreamBody)
{
    TranslatedAnswer out;
    const auto members = topLevelMembers(upstreamBody);
    if (!members) {
        out.problem = QStringLiteral("the answer is not a JSON object");
        return out;
    }
    const JsonMember *content = findMember(*members, "content");
    if (!content || !isNonEmptyArray(memberValue(upstreamBody, *content))) {
        out.problem = QStringLiteral("the answer has no content");
        return out;
    }
    if (const JsonMember *usage = findMember(*members, "usage")) {
        if (!mergeCountsInPlace(memberValue(upstreamBody, *usage), out.usage))
            mergeUsage(parseObject(memberValue(upstreamBody, *usage)), out.usage);
    }
    if (m_options.captureText) {
        // Content logging only: the answer itself passes through unparsed.
        QStringList texts;
        const QJsonArray blocks = QJsonDocument::fromJson(memberValue(upstreamBody, *content).toByteArray()).array();
        for (const QJsonValue &block : blocks) {
            if (block.toObject().value(u"type") == QLatin1String("text"))
                texts.append(block.toObject().value(u"text").toString());
        }
        out.text = texts.join(QString());
    }
    out.body = findMember(*members, "model")
        ? rewriteMembers(upstreamBody, *members, {{"model", jsonString(m_options.publicModel.toUtf8())}})
        : upstreamBody.toByteArray();
    return out;
}

TranslatedEvent AnthropicPassThrough::event(const SseEvent &event)
{
    QByteArray data = event.data;
    if (!looksLikeObject(data)) {
        TranslatedEvent malformed;
        malformed.malformed = true;
        return malformed;
    }
    const QByteArray type = event.event.isEmpty() ? typeOf(data) : event.event;
    TranslatedEvent out;
    if (type == "message_start") {
        out = messageStart(data);
        if (out.malformed)
            return out;
    } else if (type == "content_block_start" || type == "content_block_delta") {
        m_content = true;
    } else if (type == "message_delta") {
        const QJsonDocument doc = QJsonDocument::fromJson(data);
        if (!doc.isObject()) {
            out.malformed = true;
            return out;
        }
        mergeUsage(doc.object().value("usage").toObject(), m_usage);
        if (m_usage.known)
            out.usage = m_usage;
    } else if (type == "error") {
        const QJsonDocument doc = QJsonDocument::fromJson(data);
        out.upstreamError = true;
        out.errorMessage = doc.object().value("error").toObject().value("message").toString();
        if (out.errorMessage.isEmpty())
            out.errorMessage = QStringLiteral("the upstream reported an error in the stream");
        return out;
    }
    out.content = m_content;
    out.out = frame(event.event, data);
    return out;
}

TranslatedEvent AnthropicPassThrough::messageStart(QByteArray &data)
{
    TranslatedEvent out;
    const auto top = topLevelMembers(data);
    const JsonMember *message = top ? findMember(*top, "message") : nullptr;
    const auto inner = message ? topLevelMembers(memberValue(data, *message)) : std::nullopt;
    if (!inner) {
        out.malformed = true;
        return out;
    }
    const QByteArrayView messageText = memberValue(data, *message);
    if (const JsonMember *usage = findMember(*inner, "usage")) {
        mergeUsage(parseObject(memberValue(messageText, *usage)), m_usage);
        if (m_usage.known)
            out.usage = m_usage;
    }
    if (findMember(*inner, "model")) {
        const QByteArray rewritten =
            rewriteMembers(messageText, *inner, {{"model", jsonString(m_options.publicModel.toUtf8())}});
        data = rewriteMembers(data, *top, {{"message", rewritten}});
    }
    return out;
}

QByteArray AnthropicPassThrough::interrupted(const QString &reason)
{
    return interruptedEvent(reason);
}

} // namespace sy::api::anthropic
