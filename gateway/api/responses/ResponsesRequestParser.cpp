#include "api/responses/ResponsesRequestParser.h"

#include "api/RequestFaults.h"
#include "api/openai/OpenAiWire.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <cmath>

namespace sy::api::responses {

namespace {

// The first fault met; parsing stops there (api/RequestFaults.h).
using namespace parsing;

QString member(const QString &at, const char *key)
{
    return at.isEmpty() ? QString::fromLatin1(key) : at + QLatin1Char('.') + QLatin1String(key);
}

QString element(const QString &at, qsizetype index)
{
    return at + QLatin1Char('[') + QString::number(index) + QLatin1Char(']');
}

QString optionalString(const QJsonObject &object, const char *key, const QString &at)
{
    const QJsonValue v = object.value(QLatin1String(key));
    if (absent(v))
        return {};
    if (!v.isString())
        invalid(member(at, key), QStringLiteral("'%1' must be a string.").arg(member(at, key)));
    return v.toString();
}

QString requiredString(const QJsonObject &object, const char *key, const QString &at)
{
    const QString value = optionalString(object, key, at);
    if (value.isEmpty())
        invalid(member(at, key), QStringLiteral("'%1' is required.").arg(member(at, key)));
    return value;
}

std::optional<double> optionalNumber(const QJsonObject &body, const char *key)
{
    const QJsonValue v = body.value(QLatin1String(key));
    if (absent(v))
        return std::nullopt;
    if (!v.isDouble())
        invalid(QLatin1String(key), QStringLiteral("'%1' must be a number.").arg(QLatin1String(key)));
    return v.toDouble();
}

std::optional<bool> optionalBool(const QJsonObject &body, const char *key)
{
    const QJsonValue v = body.value(QLatin1String(key));
    if (absent(v))
        return std::nullopt;
    if (!v.isBool())
        invalid(QLatin1String(key), QStringLiteral("'%1' must be true or false.").arg(QLatin1String(key)));
    return v.toBool();
}

QJsonObject optionalObject(const QJsonObject &object, const char *key, const QString &at)
{
    const QJsonValue v = object.value(QLatin1String(key));
    if (absent(v))
        return {};
    if (!v.isObject())
        invalid(member(at, key), QStringLiteral("'%1' must be an object.").arg(member(at, key)));
    return v.toObject();
}

enum class Speaker { User, Assistant, System };

ContentPart imagePart(const QJsonObject &part, const QString &at)
{
    if (!absent(part.value("file_id")))
        unsupported(member(at, "file_id"),
                    QStringLiteral("'%1': images by file id cannot be served, this gateway has no file store; send 'image_url' "
                                   "(an https or data: URL) instead.").arg(member(at, "file_id")));
    const QString url = optionalString(part, "image_url", at);
    if (url.isEmpty())
        invalid(member(at, "image_url"), QStringLiteral("'%1' must be a URL.").arg(member(at, "image_url")));
    ContentPart out;
    out.kind = ContentPart::Kind::Image;
    if (!openai::setImageFromUrl(url, out))
        invalid(member(at, "image_url"), QStringLiteral("'%1' is a data: URL that is not base64.").arg(member(at, "image_url")));
    return out;
}

// One element of a message's `content` array.
ContentPart contentPart(const QJsonValue &value, const QString &at, Speaker speaker)
{
    if (!value.isObject())
        invalid(at, QStringLiteral("'%1' must be an object.").arg(at));
    const QJsonObject part = value.toObject();
    const QString type = part.value("type").toString();
    const QString typeAt = member(at, "type");
    const bool assistant = speaker == Speaker::Assistant;
    if (type == QLatin1String("input_text") || (assistant && type == QLatin1String("output_text"))) {
        const QJsonValue text = part.value("text");
        if (!text.isString())
            invalid(member(at, "text"), QStringLiteral("'%1' must be a string.").arg(member(at, "text")));
        return ContentPart::textPart(text.toString());
    }
    if (assistant && type == QLatin1String("refusal")) {
        const QJsonValue text = part.value("refusal");
        if (!text.isString())
            invalid(member(at, "refusal"), QStringLiteral("'%1' must be a string.").arg(member(at, "refusal")));
        return ContentPart::textPart(text.toString());
    }
    if (type == QLatin1String("input_image")) {
        if (speaker != Speaker::User)
            unsupported(typeAt, QStringLiteral("Images are taken only in user messages, not at '%1'.").arg(typeAt));
        return imagePart(part, at);
    }
    if (type == QLatin1String("output_text") || type == QLatin1String("refusal"))
        invalid(typeAt, QStringLiteral("'%1': '%2' belongs to assistant messages.").arg(typeAt, type));
    if (type == QLatin1String("input_file") || type == QLatin1String("input_audio"))
        unsupported(typeAt, QStringLiteral("Content of type '%1' at '%2' cannot be served by this gateway.").arg(type, typeAt));
    unsupported(typeAt, QStringLiteral("Unknown content type '%1' at '%2'.").arg(type, typeAt));
}

// `content` (or a function output) as parts: a string is one text part (none when empty).
QList<ContentPart> contentParts(const QJsonValue &content, const QString &contentAt, Speaker speaker)
{
    if (content.isString())
        return content.toString().isEmpty() ? QList<ContentPart>{} : QList<ContentPart>{ContentPart::textPart(content.toString())};
    if (!content.isArray())
        invalid(contentAt, QStringLiteral("'%1' must be a string or an array of content parts.").arg(contentAt));
    QList<ContentPart> parts;
    const QJsonArray array = content.toArray();
    for (qsizetype i = 0; i < array.size(); ++i)
        parts.append(contentPart(array.at(i), element(contentAt, i), speaker));
    return parts;
}

// The input items in canonical turns. Items of one role that follow each other join one turn (a
// message, its reasoning and its function calls are one assistant turn; function outputs and the
// user's next words one user turn), as every channel format wants turns to alternate.
class InputReader {
public:
    InputReader(CanonicalRequest &out, bool continuesStoredResponse)
        : m_out(out)
        , m_continues(continuesStoredResponse)
    {
    }

    void read(const QJsonValue &input)
    {
        if (input.isString()) {
            if (input.toString().isEmpty())
                invalid(QStringLiteral("input"), QStringLiteral("'input' must not be empty."));
            turn(Role::User).append(ContentPart::textPart(input.toString()));
            return;
        }
        if (!input.isArray() || input.toArray().isEmpty())
            invalid(QStringLiteral("input"), QStringLiteral("'input' must be a non-empty string or a non-empty array of input items."));
        const QJsonArray items = input.toArray();
        for (qsizetype i = 0; i < items.size(); ++i)
            item(items.at(i), element(QStringLiteral("input"), i));
    }

private:
    QList<ContentPart> &turn(Role role)
    {
        if (m_out.messages.isEmpty() || m_out.messages.last().role != role)
            m_out.messages.append(Message{role, {}});
        return m_out.messages.last().parts;
    }

    void item(const QJsonValue &value, const QString &at)
    {
        if (!value.isObject())
            invalid(at, QStringLiteral("'%1' must be an object.").arg(at));
        const QJsonObject item = value.toObject();
        const QJsonValue typeValue = item.value("type");
        if (absent(typeValue) && item.contains("role"))
            return message(item, at);
        if (!typeValue.isString())
            invalid(member(at, "type"), QStringLiteral("'%1' is required.").arg(member(at, "type")));
        const QString type = typeValue.toString();
        if (type == QLatin1String("message"))
            return message(item, at);
        if (type == QLatin1String("function_call"))
            return functionCall(item, at);
        if (type == QLatin1String("function_call_output"))
            return functionOutput(item, at);
        if (type == QLatin1String("reasoning"))
            return reasoning(item, at);
        if (type == QLatin1String("item_reference"))
            unsupported(member(at, "type"), QStringLiteral("'%1': item references cannot be resolved by this gateway; "
                                                           "send the item itself or use 'previous_response_id'.").arg(member(at, "type")));
        unsupported(member(at, "type"), QStringLiteral("Input items of type '%1' at '%2' cannot be served by this gateway.")
                                            .arg(type, member(at, "type")));
    }

    void message(const QJsonObject &item, const QString &at)
    {
        const QString role = item.value("role").toString();
        if (role == QLatin1String("user")) {
            turn(Role::User).append(contentParts(item.value("content"), member(at, "content"), Speaker::User));
        } else if (role == QLatin1String("assistant")) {
            turn(Role::Assistant).append(contentParts(item.value("content"), member(at, "content"), Speaker::Assistant));
        } else if (role == QLatin1String("system") || role == QLatin1String("developer")) {
            // Other formats have one system prompt: a later system message joins it, in order.
            m_out.system.append(contentParts(item.value("content"), member(at, "content"), Speaker::System));
        } else {
            invalid(member(at, "role"), QStringLiteral("Unknown role '%1' at '%2'.").arg(role, member(at, "role")));
        }
    }

    void functionCall(const QJsonObject &item, const QString &at)
    {
        ContentPart call;
        call.kind = ContentPart::Kind::ToolCall;
        call.toolCallId = requiredString(item, "call_id", at);
        call.toolName = requiredString(item, "name", at);
        call.argumentsJson = optionalString(item, "arguments", at).toUtf8();
        if (call.argumentsJson.trimmed().isEmpty())
            call.argumentsJson = "{}";
        m_calls.insert(call.toolCallId);
        turn(Role::Assistant).append(call);
    }

    void functionOutput(const QJsonObject &item, const QString &at)
    {
        ContentPart result;
        result.kind = ContentPart::Kind::ToolResult;
        result.toolCallId = requiredString(item, "call_id", at);
        // A call made in a stored response is only known once the service resolved it.
        if (!m_continues && !m_calls.contains(result.toolCallId))
            invalid(member(at, "call_id"), QStringLiteral("'%1': no function call with call_id '%2' in the input; "
                                                          "send the call before its output or continue with 'previous_response_id'.")
                                               .arg(member(at, "call_id"), result.toolCallId));
        const QJsonValue output = item.value("output");
        if (output.isString())
            result.text = output.toString();
        else if (output.isArray())
            result.resultParts = contentParts(output, member(at, "output"), Speaker::User);
        else
            invalid(member(at, "output"), QStringLiteral("'%1' must be a string or an array of content parts.").arg(member(at, "output")));
        turn(Role::User).append(result);
    }

    void reasoning(const QJsonObject &item, const QString &at)
    {
        ContentPart thinking;
        thinking.kind = ContentPart::Kind::Thinking;
        const QJsonValue summary = item.value("summary");
        if (!absent(summary) && !summary.isArray())
            invalid(member(at, "summary"), QStringLiteral("'%1' must be an array.").arg(member(at, "summary")));
        QStringList texts;
        const QJsonArray parts = summary.toArray();
        for (qsizetype i = 0; i < parts.size(); ++i) {
            const QString partAt = element(member(at, "summary"), i);
            const QJsonObject part = parts.at(i).toObject();
            if (part.value("type").toString() != QLatin1String("summary_text"))
                unsupported(member(partAt, "type"), QStringLiteral("'%1' must be 'summary_text'.").arg(member(partAt, "type")));
            texts.append(optionalString(part, "text", partAt));
        }
        thinking.text = texts.join(QStringLiteral("\n\n"));
        thinking.signature = optionalString(item, "encrypted_content", at);
        // Opaque reasoning with no words is what redacted thinking comes back as.
        thinking.redacted = thinking.text.isEmpty() && !thinking.signature.isEmpty();
        turn(Role::Assistant).append(thinking);
    }

    CanonicalRequest &m_out;
    bool m_continues;
    QSet<QString> m_calls;   // call ids of the function calls read so far
};

void parseTools(const QJsonObject &body, CanonicalRequest &out)
{
    const QJsonValue tools = body.value("tools");
    if (!absent(tools) && !tools.isArray())
        invalid(QStringLiteral("tools"), QStringLiteral("'tools' must be an array."));
    const QJsonArray array = tools.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString at = element(QStringLiteral("tools"), i);
        if (!array.at(i).isObject())
            invalid(at, QStringLiteral("'%1' must be an object.").arg(at));
        const QJsonObject tool = array.at(i).toObject();
        const QString type = tool.value("type").toString();
        if (type != QLatin1String("function"))
            unsupported(member(at, "type"), QStringLiteral("Tools of type '%1' ('%2') are not supported by this gateway; only "
                                                           "function tools are.").arg(type, member(at, "type")));
        Tool t;
        t.name = requiredString(tool, "name", at);
        t.description = optionalString(tool, "description", at);
        t.inputSchema = optionalObject(tool, "parameters", at);
        out.tools.append(t);
    }

    const QJsonValue choice = body.value("tool_choice");
    if (choice.isString()) {
        const QString mode = choice.toString();
        if (mode == QLatin1String("auto"))
            out.toolChoice.mode = ToolChoice::Mode::Auto;
        else if (mode == QLatin1String("none"))
            out.toolChoice.mode = ToolChoice::Mode::None;
        else if (mode == QLatin1String("required"))
            out.toolChoice.mode = ToolChoice::Mode::Required;
        else
            invalid(QStringLiteral("tool_choice"), QStringLiteral("Unknown 'tool_choice' '%1'.").arg(mode));
    } else if (choice.isObject()) {
        const QJsonObject named = choice.toObject();
        if (named.value("type").toString() != QLatin1String("function"))
            unsupported(QStringLiteral("tool_choice.type"), QStringLiteral("'tool_choice.type' '%1' is not supported by this "
                                                                           "gateway; name a function.").arg(named.value("type").toString()));
        out.toolChoice.mode = ToolChoice::Mode::Named;
        out.toolChoice.name = requiredString(named, "name", QStringLiteral("tool_choice"));
    } else if (!absent(choice)) {
        invalid(QStringLiteral("tool_choice"), QStringLiteral("'tool_choice' must be a string or an object."));
    }

    const std::optional<bool> parallel = optionalBool(body, "parallel_tool_calls");
    out.toolChoice.disableParallel = parallel && !*parallel;
}

// text.format in the shape of Chat Completions' response_format, which the dialects read.
void parseTextFormat(const QJsonObject &body, CanonicalRequest &out)
{
    const QJsonObject text = optionalObject(body, "text", QString());
    const QJsonObject format = optionalObject(text, "format", QStringLiteral("text"));
    if (format.isEmpty())
        return;
    const QString type = format.value("type").toString();
    if (type == QLatin1String("text"))
        return;
    if (type == QLatin1String("json_object")) {
        out.responseFormat = QJsonObject{{"type", "json_object"}};
        return;
    }
    if (type != QLatin1String("json_schema"))
        invalid(QStringLiteral("text.format.type"), QStringLiteral("Unknown 'text.format.type' '%1'.").arg(type));
    const QString at = QStringLiteral("text.format");
    QJsonObject schema{{"name", requiredString(format, "name", at)}};
    const QJsonValue definition = format.value("schema");
    if (!definition.isObject())
        invalid(member(at, "schema"), QStringLiteral("'%1' must be a JSON Schema object.").arg(member(at, "schema")));
    schema.insert("schema", definition);
    if (const QString description = optionalString(format, "description", at); !description.isEmpty())
        schema.insert("description", description);
    const QJsonValue strict = format.value("strict");
    if (!absent(strict) && !strict.isBool())
        invalid(member(at, "strict"), QStringLiteral("'%1' must be true or false.").arg(member(at, "strict")));
    if (strict.isBool())
        schema.insert("strict", strict);
    out.responseFormat = QJsonObject{{"type", "json_schema"}, {"json_schema", schema}};
}

void parseReasoning(const QJsonObject &body, CanonicalRequest &out)
{
    const QJsonObject reasoning = optionalObject(body, "reasoning", QString());
    const QString effort = optionalString(reasoning, "effort", QStringLiteral("reasoning"));
    if (effort == QLatin1String("minimal") || effort == QLatin1String("low"))
        out.reasoning = Reasoning{QStringLiteral("low"), std::nullopt};
    else if (effort == QLatin1String("medium") || effort == QLatin1String("high"))
        out.reasoning = Reasoning{effort, std::nullopt};
    else if (effort == QLatin1String("xhigh"))
        out.reasoning = Reasoning{QStringLiteral("high"), std::nullopt};
    else if (!effort.isEmpty() && effort != QLatin1String("none"))
        invalid(QStringLiteral("reasoning.effort"), QStringLiteral("Unknown 'reasoning.effort' '%1'.").arg(effort));
    // reasoning.summary only says how much of the thinking to show: every channel shows all it has.
    optionalString(reasoning, "summary", QStringLiteral("reasoning"));
}

// Fields whose answer would need state kept at OpenAI (stored prompts, conversations, background
// runs): refused rather than answered without it.
void refuseServerState(const QJsonObject &body)
{
    if (!absent(body.value("conversation")))
        unsupported(QStringLiteral("conversation"), QStringLiteral("'conversation' is not supported by this gateway; "
                                                                   "continue with 'previous_response_id'."));
    if (!absent(body.value("prompt")))
        unsupported(QStringLiteral("prompt"), QStringLiteral("Stored prompts ('prompt') are not supported by this gateway."));
    if (optionalBool(body, "background").value_or(false))
        unsupported(QStringLiteral("background"), QStringLiteral("'background' responses are not supported by this gateway."));
}

} // namespace

std::variant<CanonicalRequest, ApiError> parseResponsesRequest(const QJsonObject &body)
{
    CanonicalRequest out;
    try {
        out.model = optionalString(body, "model", QString());
        refuseServerState(body);
        out.previousResponseId = optionalString(body, "previous_response_id", QString());
        out.store = optionalBool(body, "store").value_or(true);

        const QJsonValue instructions = body.value("instructions");
        if (instructions.isString() && !instructions.toString().isEmpty())
            out.system.append(ContentPart::textPart(instructions.toString()));
        else if (!absent(instructions) && !instructions.isString())
            invalid(QStringLiteral("instructions"), QStringLiteral("'instructions' must be a string."));

        InputReader(out, !out.previousResponseId.isEmpty()).read(body.value("input"));
        parseTools(body, out);
        parseTextFormat(body, out);
        parseReasoning(body, out);

        out.temperature = optionalNumber(body, "temperature");
        out.topP = optionalNumber(body, "top_p");
        if (const std::optional<double> max = optionalNumber(body, "max_output_tokens")) {
            if (*max < 1 || std::floor(*max) != *max)
                invalid(QStringLiteral("max_output_tokens"), QStringLiteral("'max_output_tokens' must be a positive integer."));
            out.maxTokens = qint64(*max);
        }
        out.stream = optionalBool(body, "stream").value_or(false);
        out.user = optionalString(body, "user", QString());
    } catch (const parsing::Fault &fault) {
        return fault.error;
    }
    return out;
}

} // namespace sy::api::responses
