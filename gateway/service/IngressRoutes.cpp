#include "service/IngressRoutes.h"

#include "api/Codec.h"

namespace sy::service {

namespace {

bool chainNeedsTranslation(const ChatRequest &chat, const Workspace &workspace)
{
    const QSet<QString> &formats = workspace.channelFormats();
    if (formats.size() == 1 && api::channelFormatFromName(*formats.begin()) == chat.format)
        return false;   // every channel speaks the client's format: no route to look through
    for (const QString &model : chat.chain) {
        for (const ChannelRoute &route : workspace.routesFor(model)) {
            if (api::channelFormatFromName(route.channel->format) != chat.format)
                return true;
        }
    }
    return false;
}

} // namespace

api::Format formatForPath(QByteArrayView path)
{
    if (path == "/v1/messages" || path.startsWith("/v1/messages/"))
        return api::Format::Anthropic;
    if (path == "/v1/responses" || path.startsWith("/v1/responses/"))
        return api::Format::OpenAiResponses;
    if (path == "/v1beta" || path.startsWith("/v1beta/"))
        return api::Format::Gemini;
    return api::Format::OpenAiChat;
}

std::optional<GeminiTarget> geminiTarget(QByteArrayView path)
{
    constexpr QByteArrayView prefix = "/v1beta/models/";
    if (!path.startsWith(prefix))
        return std::nullopt;
    const QByteArrayView rest = path.sliced(prefix.size());
    const qsizetype colon = rest.lastIndexOf(':');
    if (colon <= 0 || colon == rest.size() - 1)
        return std::nullopt;
    return GeminiTarget{QString::fromUtf8(rest.first(colon)), rest.sliced(colon + 1).toByteArray()};
}

std::optional<ErrorReply> prepareTranslation(ChatRequest &chat, const Workspace &workspace, const http::HttpRequest &request)
{
    if (chat.format == api::Format::Anthropic) {
        for (const char *name : {"anthropic-version", "anthropic-beta"}) {
            if (const QByteArray value = request.header(name); !value.isEmpty())
                chat.forwardHeaders.append({name, value});
        }
    }
    // Other formats were validated into canonical form by parseChatRequest.
    if (chat.format != api::Format::OpenAiChat || chat.canonical || !chainNeedsTranslation(chat, workspace))
        return std::nullopt;
    const api::IngressCodec *codec = api::ingressCodec(chat.format);
    if (!codec)
        return std::nullopt;   // no translation possible: attempts on other formats fail with a reason
    auto parsed = codec->parse(chat.body);
    if (auto *error = std::get_if<api::ApiError>(&parsed))
        return *error;
    chat.canonical = std::make_shared<const api::CanonicalRequest>(std::get<api::CanonicalRequest>(std::move(parsed)));
    return std::nullopt;
}

} // namespace sy::service
