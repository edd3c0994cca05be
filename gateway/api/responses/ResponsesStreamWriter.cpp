#include "api/responses/ResponsesStreamWriter.h"

#include "api/responses/ResponseIds.h"

#include <QDateTime>

namespace sy::api::responses {

ResponsesStreamWriter::ResponsesStreamWriter(WriterOptions options)
    : m_options(std::move(options))
    , m_responseId(responseIdFor(m_options.requestId))
{
}

QByteArray ResponsesStreamWriter::event(const QString &type, QJsonObject data)
{
    return sseEvent(type, std::move(data), m_sequence++);
}

ResponseState ResponsesStreamWriter::state(const QString &status) const
{
    ResponseState s;
    s.id = m_responseId;
    s.createdAt = m_createdAt;
    s.status = status;
    s.model = m_options.publicModel;
    return s;
}

QByteArray ResponsesStreamWriter::start()
{
    m_started = true;
    m_createdAt = QDateTime::currentSecsSinceEpoch();
    const QJsonObject response = responseObject(state(QStringLiteral("in_progress")), m_options.request.get());
    QByteArray out = event(QStringLiteral("response.created"), QJsonObject{{"response", response}});
    return out + event(QStringLiteral("response.in_progress"), QJsonObject{{"response", response}});
}

QByteArray ResponsesStreamWriter::openItem(const StreamEvent &e)
{
    m_answer.add(e);
    const ItemKind kind = itemKindOf(e.blockKind);
    if (kind == ItemKind::None)
        return {};   // not answer output in this format (the accumulator keeps it out of `output` too)
    OpenItem item{e.index, kind, m_outputCount++, {}, false};
    item.id = itemId(kind, m_responseId, item.outputIndex);
    m_open = item;
    QByteArray out = event(QStringLiteral("response.output_item.added"),
                           QJsonObject{{"output_index", item.outputIndex},
                                       {"item", outputItem(m_answer.answer().parts.last(), item.id, QStringLiteral("in_progress"))}});
    if (kind == ItemKind::Message) {
        out += event(QStringLiteral("response.content_part.added"),
                     QJsonObject{{"item_id", item.id}, {"output_index", item.outputIndex}, {"content_index", 0},
                                 {"part", QJsonObject{{"type", "output_text"}, {"text", ""}, {"annotations", QJsonArray{}}}}});
    }
    return out;
}

QByteArray ResponsesStreamWriter::delta(const StreamEvent &e)
{
    if (!m_open || m_open->blockIndex != e.index)
        return {};   // a delta of a block that is not open has no item to go to
    m_answer.add(e);
    OpenItem &item = *m_open;
    const QJsonObject at{{"item_id", item.id}, {"output_index", item.outputIndex}};
    auto with = [&](std::initializer_list<QPair<QString, QJsonValue>> more) {
        QJsonObject data = at;
        for (const auto &[key, value] : more)
            data.insert(key, value);
        return data;
    };
    switch (item.kind) {
    case ItemKind::Message:
        if (e.text.isEmpty())
            return {};
        return event(QStringLiteral("response.output_text.delta"),
                     with({{"content_index", 0}, {"delta", e.text}, {"logprobs", QJsonArray{}}}));
    case ItemKind::FunctionCall:
        if (e.argumentsDelta.isEmpty())
            return {};
        return event(QStringLiteral("response.function_call_arguments.delta"), with({{"delta", QString::fromUtf8(e.argumentsDelta)}}));
    case ItemKind::Reasoning: {
        if (e.text.isEmpty())
            return {};   // a signature piece: it arrives with the item's done event
        QByteArray out;
        if (!item.summaryStarted) {
            item.summaryStarted = true;
            out += event(QStringLiteral("response.reasoning_summary_part.added"),
                         with({{"summary_index", 0}, {"part", QJsonObject{{"type", "summary_text"}, {"text", ""}}}}));
        }
        return out + event(QStringLiteral("response.reasoning_summary_text.delta"), with({{"summary_index", 0}, {"delta", e.text}}));
    }
    case ItemKind::None: break;
    }
    return {};
}

QByteArray ResponsesStreamWriter::closeItem()
{
    if (!m_open)
        return {};
    const OpenItem item = *m_open;
    m_open.reset();
    const ContentPart &part = m_answer.answer().parts.last();
    const QJsonObject at{{"item_id", item.id}, {"output_index", item.outputIndex}};
    QByteArray out;
    if (item.kind == ItemKind::Message) {
        QJsonObject done = at;
        done.insert("content_index", 0);
        QJsonObject text = done;
        text.insert("text", part.text);
        text.insert("logprobs", QJsonArray{});
        out += event(QStringLiteral("response.output_text.done"), text);
        done.insert("part", QJsonObject{{"type", "output_text"}, {"text", part.text}, {"annotations", QJsonArray{}}});
        out += event(QStringLiteral("response.content_part.done"), done);
    } else if (item.kind == ItemKind::FunctionCall) {
        QJsonObject done = at;
        done.insert("arguments", QString::fromUtf8(part.argumentsJson.isEmpty() ? "{}" : part.argumentsJson));
        out += event(QStringLiteral("response.function_call_arguments.done"), done);
    } else if (item.kind == ItemKind::Reasoning && item.summaryStarted) {
        QJsonObject done = at;
        done.insert("summary_index", 0);
        QJsonObject text = done;
        text.insert("text", part.text);
        out += event(QStringLiteral("response.reasoning_summary_text.done"), text);
        done.insert("part", QJsonObject{{"type", "summary_text"}, {"text", part.text}});
        out += event(QStringLiteral("response.reasoning_summary_part.done"), done);
    }
    return out + event(QStringLiteral("response.output_item.done"),
                       QJsonObject{{"output_index", item.outputIndex}, {"item", outputItem(part, item.id, QStringLiteral("completed"))}});
}

QByteArray ResponsesStreamWriter::finish()
{
    m_finished = true;
    const CanonicalAnswer &answer = m_answer.answer();
    ResponseState s = state(statusFor(answer.stopReason));
    s.output = outputItems(answer.parts, m_responseId, QStringLiteral("completed"));
    s.usage = usageJson(answer.usage);
    s.incompleteDetails = incompleteDetailsFor(answer.stopReason);
    const QString type = s.status == QLatin1String("incomplete") ? QStringLiteral("response.incomplete")
                                                                 : QStringLiteral("response.completed");
    return event(type, QJsonObject{{"response", responseObject(s, m_options.request.get())}});
}

QByteArray ResponsesStreamWriter::write(const StreamEvent &e)
{
    if (m_closed || m_finished)
        return {};
    QByteArray out;
    if (!m_started)
        out = start();
    switch (e.kind) {
    case StreamEvent::Kind::Start:
        m_answer.add(e);
        break;
    case StreamEvent::Kind::BlockStart:
        out += closeItem();   // blocks do not interleave; a missing stop closes the item here
        out += openItem(e);
        break;
    case StreamEvent::Kind::Delta:
        out += delta(e);
        break;
    case StreamEvent::Kind::BlockStop:
        if (m_open && m_open->blockIndex == e.index)
            out += closeItem();
        break;
    case StreamEvent::Kind::Finish:
        out += closeItem();
        m_answer.add(e);
        out += finish();
        break;
    }
    return out;
}

QByteArray ResponsesStreamWriter::end()
{
    if (m_closed)
        return {};
    QByteArray out;
    if (!m_started)
        out += start();
    if (!m_finished) {
        // A stream cut without Finish still ends validly: what came is the answer.
        out += closeItem();
        out += finish();
    }
    m_closed = true;
    return out;
}

QByteArray ResponsesStreamWriter::interrupted(const QString &reason)
{
    if (m_closed)
        return {};
    m_closed = true;
    QByteArray out;
    if (!m_started)
        out += start();
    ResponseState s = state(QStringLiteral("failed"));
    s.output = outputItems(m_answer.answer().parts, m_responseId, QStringLiteral("completed"));
    if (m_open && m_open->outputIndex < s.output.size()) {
        // The item that was being written when the stream broke is cut short.
        QJsonObject cut = s.output.at(m_open->outputIndex).toObject();
        if (cut.contains("status"))
            cut.insert("status", "incomplete");
        s.output.replace(m_open->outputIndex, cut);
    }
    s.usage = usageJson(m_answer.answer().usage);
    s.error = QJsonObject{{"code", "stream_interrupted"}, {"message", reason}};
    return out + event(QStringLiteral("response.failed"), QJsonObject{{"response", responseObject(s, m_options.request.get())}});
}

} // namespace sy::api::responses
