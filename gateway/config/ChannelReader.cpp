// `channels:` — one entry per way of reaching a provider (SPEC §1, §12).
#include "config/Sections.h"
#include "config/Vocabulary.h"

#include <QRegularExpression>
#include <QUrl>
#include <algorithm>
#include <cmath>

namespace sy::config::detail {

namespace {

const QStringList &kFormats = channelFormats();
const QStringList &kTiers = channelTiers();
const QStringList &kDataCollection = dataCollectionValues();
const QStringList &kAuth = authStyles();

// Channel ids and provider slugs go into response headers and metric labels: keep them ASCII.
bool isSlug(const QString &text)
{
    static const QRegularExpression slug(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]*$"));
    return slug.match(text).hasMatch();
}

void readSlug(Reader &reader, MapView &map, const char *key, QString &out, Where *mark = nullptr)
{
    const YAML::Node *node = map.require(key);
    if (mark)
        *mark = map.whereOf(key);
    if (!node)
        return;
    const std::optional<QString> v = reader.text(*node, map.field(key));
    if (!v)
        return;
    if (!isSlug(*v)) {
        reader.fail(*node, map.field(key),
                    QStringLiteral("expected letters, digits, '.', '_' or '-' (no spaces)"));
        return;
    }
    out = *v;
}

void readBaseUrl(Reader &reader, MapView &map, Channel &channel)
{
    const YAML::Node *node = map.require("base_url");
    if (!node)
        return;
    const std::optional<QString> text = reader.text(*node, map.field("base_url"));
    if (!text)
        return;
    const QUrl url(*text, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || (scheme != u"http" && scheme != u"https") || url.host().isEmpty()
        || url.hasQuery() || url.hasFragment()) {
        reader.fail(*node, map.field("base_url"),
                    QStringLiteral("expected an http:// or https:// URL without query or fragment"));
        return;
    }
    QString stripped = *text;
    while (stripped.endsWith(u'/'))
        stripped.chop(1);
    channel.baseUrl = stripped;
}

void readTls(Reader &reader, const YAML::Node &node, const QString &path, Tls &tls)
{
    MapView map(reader, node, path, {"ca_file", "insecure"});
    if (!map.isMap())
        return;
    map.read("ca_file", tls.caFile);
    map.read("insecure", tls.insecure);
}

void readProxy(Reader &reader, MapView &map, Channel &channel)
{
    const YAML::Node *node = map.get("proxy");
    if (!node)
        return;
    const std::optional<QString> text = reader.text(*node, map.field("proxy"));
    if (!text || text->isEmpty())
        return;
    const QUrl url(*text, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid() || (scheme != u"http" && scheme != u"https" && scheme != u"socks5"
                           && scheme != u"socks5h") || url.host().isEmpty()) {
        reader.fail(*node, map.field("proxy"),
                    QStringLiteral("expected a proxy URL such as http://host:port"));
        return;
    }
    channel.proxy = *text;
}

void readCredentials(Reader &reader, MapView &map, Channel &channel)
{
    const YAML::Node *list = map.get("credentials");
    if (!list || !reader.expectList(*list, map.field("credentials")))
        return;
    std::size_t i = 0;
    for (auto it = list->begin(); it != list->end(); ++it, ++i) {
        const QString field = indexField(map.field("credentials"), i);
        // Error texts below never include the value: this is an upstream API key.
        if (auto v = reader.text(*it, field)) {
            if (v->isEmpty())
                reader.fail(*it, field, QStringLiteral("must not be empty"));
            else
                channel.credentials.append(*v);
        }
    }
}

void readTimeout(Reader &reader, MapView &map, const char *key, std::chrono::milliseconds &out)
{
    const YAML::Node *node = map.get(key);
    if (!node)
        return;
    if (auto seconds = reader.number(*node, map.field(key), Range::aboveUpTo(0, 86'400)))
        out = std::chrono::milliseconds(std::max<long long>(1, std::llround(*seconds * 1000)));
}

void readTimeouts(Reader &reader, const YAML::Node &node, const QString &path, Timeouts &timeouts)
{
    MapView map(reader, node, path, {"connect_s", "first_byte_s", "idle_s"});
    if (!map.isMap())
        return;
    readTimeout(reader, map, "connect_s", timeouts.connect);
    readTimeout(reader, map, "first_byte_s", timeouts.firstByte);
    readTimeout(reader, map, "idle_s", timeouts.idle);
}

void readChannelModel(Reader &reader, const YAML::Node &node, const QString &path,
                      ChannelModel &model, Where &idMark)
{
    MapView map(reader, node, path, {"id", "upstream", "price"});
    idMark = map.whereOf("id");
    if (!map.isMap())
        return;
    if (const YAML::Node *id = map.require("id"))
        if (auto v = reader.text(*id, map.field("id")); v && checkModelId(reader, idMark, *v))
            model.id = *v;
    model.upstream = model.id;
    if (const YAML::Node *up = map.get("upstream"))
        if (auto v = reader.text(*up, map.field("upstream"))) {
            if (v->isEmpty())
                reader.fail(*up, map.field("upstream"), QStringLiteral("must not be empty"));
            else
                model.upstream = *v;
        }
    if (const YAML::Node *price = map.get("price")) {
        MapView p(reader, *price, map.field("price"), {"prompt", "completion"});
        if (p.isMap()) {
            p.read("prompt", model.price.prompt, Range::atLeast(0));
            p.read("completion", model.price.completion, Range::atLeast(0));
        }
    }
}

void readChannelModels(Reader &reader, MapView &map, Channel &channel, ChannelMarks &marks)
{
    const YAML::Node *list = map.get("models");
    if (!list || !reader.expectList(*list, map.field("models")))
        return;
    std::size_t i = 0;
    for (auto it = list->begin(); it != list->end(); ++it, ++i) {
        ChannelModel model;
        Where mark;
        readChannelModel(reader, *it, indexField(map.field("models"), i), model, mark);
        channel.models.push_back(std::move(model));
        marks.modelIds.push_back(std::move(mark));
    }
}

void readChannel(Reader &reader, const YAML::Node &node, const QString &path, Channel &channel,
                 ChannelMarks &marks)
{
    MapView map(reader, node, path,
                {"id", "provider", "base_url", "format", "credentials", "enabled",
                 "max_concurrent", "timeouts", "tier", "quantization", "data_collection", "zdr",
                 "distillable", "supported_parameters", "models", "auth", "tls", "proxy",
                 "probe_interval_s"});
    marks.id = map.whereOf("id");
    if (!map.isMap())
        return;
    readSlug(reader, map, "id", channel.id, &marks.id);
    readSlug(reader, map, "provider", channel.provider);
    readBaseUrl(reader, map, channel);
    map.readChoice("format", channel.format, kFormats);
    readCredentials(reader, map, channel);
    map.read("enabled", channel.enabled);
    map.read("max_concurrent", channel.maxConcurrent, Range::between(0, 1'000'000));
    if (const YAML::Node *t = map.get("timeouts"))
        readTimeouts(reader, *t, map.field("timeouts"), channel.timeouts);
    map.readChoice("tier", channel.tier, kTiers);
    map.read("quantization", channel.quantization);
    map.readChoice("data_collection", channel.dataCollection, kDataCollection);
    map.read("zdr", channel.zdr);
    map.read("distillable", channel.distillable);
    map.read("supported_parameters", channel.supportedParameters);
    readChannelModels(reader, map, channel, marks);
    map.readChoice("auth", channel.auth, kAuth);
    if (const YAML::Node *t = map.get("tls"))
        readTls(reader, *t, map.field("tls"), channel.tls);
    readProxy(reader, map, channel);
    map.read("probe_interval_s", channel.probeIntervalS, Range::between(0, 86'400));
}

} // namespace

void readChannels(Reader &reader, const YAML::Node &list, const QString &field,
                  std::vector<Channel> &channels, std::vector<ChannelMarks> &marks)
{
    readEach(reader, list, field, channels, marks, readChannel);
}

} // namespace sy::config::detail
