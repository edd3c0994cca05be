#include "api/CanonicalBridge.h"

namespace sy::api {

CanonicalBridge::CanonicalBridge(std::shared_ptr<const CanonicalRequest> request, const IngressCodec &codec,
                                 const UpstreamDialect &dialect, WriterOptions options)
    : m_request(std::move(request))
    , m_codec(codec)
    , m_dialect(dialect)
    , m_options(std::move(options))
{
    if (!m_options.request)
        m_options.request = m_request;
}

WireRequest CanonicalBridge::request(const QString &upstreamModel, const QString &credential)
{
    return m_dialect.request(*m_request, upstreamModel, credential);
}

TranslatedAnswer CanonicalBridge::answer(QByteArrayView upstreamBody)
{
    TranslatedAnswer out;
    DecodedAnswer decoded = m_dialect.decodeAnswer(upstreamBody);
    if (!decoded.answer) {
        out.problem = decoded.problem.isEmpty() ? QStringLiteral("upstream answer could not be read") : decoded.problem;
        return out;
    }
    out.usage = decoded.answer->usage;
    out.body = m_codec.answerBody(*decoded.answer, m_options);
    if (m_options.onAnswer)
        m_options.onAnswer(*decoded.answer);
    for (const ContentPart &part : std::as_const(decoded.answer->parts)) {
        if (part.kind == ContentPart::Kind::Text)
            out.text += part.text;
    }
    return out;
}

void CanonicalBridge::writeEvents(const std::vector<StreamEvent> &events, TranslatedEvent &out)
{
    if (!m_writer)
        m_writer = m_codec.streamWriter(m_options);
    for (const StreamEvent &e : events) {
        out.out += m_writer->write(e);
        if (m_options.onAnswer)
            m_streamed.add(e);
        switch (e.kind) {
        case StreamEvent::Kind::Start:
            if (e.usage.known)
                out.usage = e.usage;
            break;
        case StreamEvent::Kind::Finish:
            out.content = true;
            if (e.usage.known)
                out.usage = e.usage;
            break;
        case StreamEvent::Kind::BlockStart:
        case StreamEvent::Kind::BlockStop:
            out.content = true;
            break;
        case StreamEvent::Kind::Delta:
            out.content = true;
            if (e.blockKind == ContentPart::Kind::Text)
                out.text += e.text;
            break;
        }
    }
}

TranslatedEvent CanonicalBridge::event(const SseEvent &event)
{
    if (!m_decoder)
        m_decoder = m_dialect.streamDecoder();
    DecodedEvents decoded = m_decoder->decode(event);
    TranslatedEvent out;
    out.malformed = decoded.malformed;
    out.upstreamError = decoded.upstreamError;
    out.errorMessage = decoded.errorMessage;
    if (out.malformed || out.upstreamError)
        return out;
    writeEvents(decoded.events, out);
    return out;
}

QByteArray CanonicalBridge::endOfStream()
{
    if (!m_decoder)
        m_decoder = m_dialect.streamDecoder();
    TranslatedEvent out;
    writeEvents(m_decoder->finish(), out);
    out.out += m_writer->end();
    if (m_options.onAnswer && m_streamed.finished())
        m_options.onAnswer(m_streamed.answer());
    return out.out;
}

QByteArray CanonicalBridge::interrupted(const QString &reason)
{
    if (!m_writer)
        m_writer = m_codec.streamWriter(m_options);
    return m_writer->interrupted(reason);
}

} // namespace sy::api
