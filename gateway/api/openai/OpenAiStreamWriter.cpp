#include "api/openai/OpenAiStreamWriter.h"

#include "api/openai/OpenAiWire.h"

#include <QDateTime>
#include <QJsonArray>

namespace sy::api::openai {

OpenAiStreamWriter::OpenAiStreamWriter(WriterOptions options)
    : m_options(std::move(options))
{
}

QByteArray OpenAiStreamWriter::start(const QString &id)
{
    m_started = true;
    m_id = chatCompletionId(id, m_options.requestId);
    m_created = QDateTime::currentSecsSinceEpoch();
    return chunk(QJsonObject{{"role", "assistant"}, {"content", ""}});
}

QByteArray OpenAiStreamWriter::chunk(const QJsonObject &delta, const QJsonValue &finishReason) const
{
    QJsonObject choice{{"index", 0}, {"delta", delta}, {"logprobs", QJsonValue::Null}, {"finish_reason", finishReason}};
    QJsonObject object{
        {"id", m_id},
        {"object", "chat.completion.chunk"},
        {"created", m_created},
        {"model", m_options.publicModel},
        {"choices", QJsonArray{choice}},
    };
    if (m_options.includeUsage)
        object.insert("usage", QJsonValue::Null);   // as OpenAI: null on every chunk but the last
    return sseData(object);
}

QByteArray OpenAiStreamWriter::finish(StopReason reason, const TokenUsage &usage)
{
    m_finished = true;
    QByteArray out = chunk(QJsonObject{}, finishReasonFor(reason, !m_toolIndexes.isEmpty()));
    // The usage chunk only when asked and known: zeros would be a wrong bill, not a missing one.
    if (m_options.includeUsage && usage.known) {
        out += sseData(QJsonObject{
            {"id", m_id},
            {"object", "chat.completion.chunk"},
            {"created", m_created},
            {"model", m_options.publicModel},
            {"choices", QJsonArray{}},
            {"usage", usageJson(usage)},
        });
    }
    return out;
}

QByteArray OpenAiStreamWriter::write(const StreamEvent &event)
{
    if (m_closed || m_finished)
        return {};
    QByteArray out;
    if (!m_started)
        out = start(event.kind == StreamEvent::Kind::Start ? event.id : QString());
    else if (event.kind == StreamEvent::Kind::Start)
        return {};

    switch (event.kind) {
    case StreamEvent::Kind::Start:
    case StreamEvent::Kind::BlockStop:
        break;
    case StreamEvent::Kind::BlockStart:
        m_blockKinds.insert(event.index, event.blockKind);
        if (event.blockKind == ContentPart::Kind::ToolCall) {
            const int toolIndex = int(m_toolIndexes.size());
            m_toolIndexes.insert(event.index, toolIndex);
            const QJsonObject call{
                {"index", toolIndex},
                {"id", event.toolCallId},
                {"type", "function"},
                {"function", QJsonObject{{"name", event.toolName}, {"arguments", ""}}},
            };
            out += chunk(QJsonObject{{"tool_calls", QJsonArray{call}}});
        }
        break;
    case StreamEvent::Kind::Delta: {
        const ContentPart::Kind kind = m_blockKinds.value(event.index, event.blockKind);
        if (kind == ContentPart::Kind::ToolCall) {
            const auto toolIndex = m_toolIndexes.constFind(event.index);
            if (toolIndex == m_toolIndexes.cend() || event.argumentsDelta.isEmpty())
                break;   // arguments of a call never started have no index to go to
            const QJsonObject call{{"index", *toolIndex},
                                   {"function", QJsonObject{{"arguments", QString::fromUtf8(event.argumentsDelta)}}}};
            out += chunk(QJsonObject{{"tool_calls", QJsonArray{call}}});
        } else if (!event.text.isEmpty()) {
            // Thinking signatures have no place in this format and are dropped.
            const char *key = kind == ContentPart::Kind::Thinking ? "reasoning_content" : "content";
            out += chunk(QJsonObject{{QLatin1String(key), event.text}});
        }
        break;
    }
    case StreamEvent::Kind::Finish:
        out += finish(event.stopReason, event.usage);
        break;
    }
    return out;
}

QByteArray OpenAiStreamWriter::end()
{
    if (m_closed)
        return {};
    QByteArray out;
    if (!m_started)
        out += start(QString());
    if (!m_finished)
        out += finish(StopReason::Unknown, TokenUsage{});   // a stream cut without Finish still ends validly
    m_closed = true;
    return out + "data: [DONE]\n\n";
}

QByteArray OpenAiStreamWriter::interrupted(const QString &reason)
{
    if (m_closed)
        return {};
    m_closed = true;
    return sseData(QJsonObject{{"error", QJsonObject{{"code", "stream_interrupted"}, {"message", reason}}}});
}

} // namespace sy::api::openai
