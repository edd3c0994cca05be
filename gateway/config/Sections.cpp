// Top-level fields, settings, models and virtual models (channels and keys have their own files).
#include "config/Sections.h"

#include "config/ConfigLoader.h"
#include "config/RedisUrl.h"

#include <QRegularExpression>
#include <limits>

#include <arpa/inet.h>

namespace sy::config::detail {

namespace {

constexpr double kIntMax = std::numeric_limits<int>::max();

const QStringList kCapabilities{"chat", "tools", "vision", "json", "embeddings"};

// "host:port", "[v6]:port". Returns false when the text does not have that shape.
bool parseListen(const QString &text, QString &host, int &port)
{
    static const QRegularExpression bracketed(QStringLiteral("^\\[([^\\]]+)\\]:(\\d{1,5})$"));
    static const QRegularExpression plain(QStringLiteral("^([A-Za-z0-9.-]+):(\\d{1,5})$"));
    QRegularExpressionMatch m = bracketed.match(text);
    if (m.hasMatch()) {
        in6_addr address{};
        if (inet_pton(AF_INET6, m.captured(1).toLatin1().constData(), &address) != 1)
            return false;
        host = m.captured(1);
    } else {
        m = plain.match(text);
        if (!m.hasMatch())
            return false;
        host = m.captured(1);
    }
    port = m.captured(2).toInt();
    return true;
}

void readListen(Reader &reader, MapView &root, Config &config)
{
    const YAML::Node *node = root.get("listen");
    if (!node)
        return;
    const std::optional<QString> text = reader.text(*node, root.field("listen"));
    if (!text)
        return;
    QString host;
    int port = 0;
    if (!parseListen(*text, host, port)) {
        reader.fail(*node, root.field("listen"),
                    QStringLiteral("expected host:port, e.g. 127.0.0.1:8080 or [::1]:8080"));
    } else if (port > 65535) {
        reader.fail(*node, root.field("listen"),
                    QStringLiteral("port must be between 0 and 65535 (0 = any free port)"));
    } else {
        config.listenHost = host;
        config.listenPort = static_cast<quint16>(port);
    }
}

// The fields that let several instances share one port and one Redis (docs/scale-out.md#redis-limits-across-instances).
void readScaleOut(Reader &reader, MapView &root, Config &config)
{
    root.read("listen_reuse_port", config.listenReusePort);
    root.read("instance_name", config.instanceName);
    if (const YAML::Node *node = root.get("instance_name"); node && config.instanceName.trimmed().isEmpty())
        reader.fail(*node, root.field("instance_name"), QStringLiteral("must not be empty (leave it out for host:port)"));
    root.read("redis", config.redis);
    if (const YAML::Node *node = root.get("redis"); node && !config.redis.isEmpty()) {
        QString problem;
        if (!parseRedisUrl(config.redis, &problem))
            reader.fail(*node, root.field("redis"), problem);
    }
    root.readChoice("redis_unreachable", config.redisUnreachable, {"local", "fail_closed"});
    root.read("redis_lease_s", config.redisLeaseS, Range::between(2, 3600));
}

void readSettings(Reader &reader, const YAML::Node &node, const QString &path, Settings &settings)
{
    MapView map(reader, node, path,
                {"first_chunk_timeout_s", "key_limit_wait_s", "capacity_wait_s", "retry_pause_ms",
                 "max_attempts", "max_body_bytes", "log_retention_days", "log_retention_count",
                 "log_message_content", "max_request_s", "max_stream_event_bytes"});
    if (!map.isMap())
        return;
    map.read("first_chunk_timeout_s", settings.firstChunkTimeoutS, Range::aboveUpTo(0, 3600));
    map.read("key_limit_wait_s", settings.keyLimitWaitS, Range::between(0, 3600));
    map.read("capacity_wait_s", settings.capacityWaitS, Range::between(0, 3600));
    map.read("retry_pause_ms", settings.retryPauseMs, Range::between(0, 60'000));
    map.read("max_attempts", settings.maxAttempts, Range::between(0, 1000));
    map.read("max_body_bytes", settings.maxBodyBytes, Range::aboveUpTo(0, 1024.0 * 1024 * 1024));
    map.read("log_retention_days", settings.logRetentionDays, Range::between(0, 36'500));
    map.read("log_retention_count", settings.logRetentionCount, Range::between(0, 1'000'000'000));
    map.read("log_message_content", settings.logMessageContent);
    map.read("max_request_s", settings.maxRequestS, Range::aboveUpTo(0, 7 * 24 * 3600));
    map.read("max_stream_event_bytes", settings.maxStreamEventBytes, Range::between(1024, 256.0 * 1024 * 1024));
}

std::optional<QDate> parseDate(const QString &text)
{
    static const QRegularExpression shape(QStringLiteral("^\\d{4}-\\d{2}-\\d{2}$"));
    if (!shape.match(text).hasMatch())
        return std::nullopt;
    const QDate date = QDate::fromString(text, QStringLiteral("yyyy-MM-dd"));
    if (!date.isValid())
        return std::nullopt;
    return date;
}

void readModel(Reader &reader, const YAML::Node &node, const QString &path, Model &model,
               Where &idMark)
{
    MapView map(reader, node, path,
                {"id", "enabled", "free", "capabilities", "context_length", "deprecated",
                 "rpm_per_key"});
    idMark = map.whereOf("id");
    if (!map.isMap())
        return;
    if (const YAML::Node *id = map.require("id"))
        if (auto v = reader.text(*id, map.field("id")); v && checkModelId(reader, idMark, *v))
            model.id = *v;
    map.read("enabled", model.enabled);
    map.read("free", model.free);
    if (const YAML::Node *caps = map.get("capabilities");
        caps && reader.expectList(*caps, map.field("capabilities"))) {
        QStringList list;
        std::size_t i = 0;
        for (auto it = caps->begin(); it != caps->end(); ++it, ++i)
            if (auto c = reader.choice(*it, indexField(map.field("capabilities"), i), kCapabilities);
                c && !list.contains(*c))
                list.append(*c);
        if (caps->size() == 0)
            reader.fail(*caps, map.field("capabilities"),
                        QStringLiteral("must name at least one capability"));
        else
            model.capabilities = list;
    }
    map.read("context_length", model.contextLength, Range::between(0, kIntMax));
    if (const YAML::Node *d = map.get("deprecated"))
        if (auto text = reader.text(*d, map.field("deprecated"))) {
            if (auto date = parseDate(*text))
                model.deprecated = *date;
            else
                reader.fail(*d, map.field("deprecated"),
                            QStringLiteral("expected a date as YYYY-MM-DD"));
        }
    map.read("rpm_per_key", model.rpmPerKey, Range::between(0, 1'000'000));
}

void readModels(Reader &reader, const YAML::Node &list, const QString &field,
                std::vector<Model> &models, std::vector<Where> &marks)
{
    readEach(reader, list, field, models, marks, readModel);
}

void readVirtualModel(Reader &reader, const YAML::Node &node, const QString &path,
                      VirtualModel &vm, VirtualModelMarks &marks)
{
    MapView map(reader, node, path, {"id", "primary", "fallbacks"});
    marks.id = map.whereOf("id");
    marks.primary = map.whereOf("primary");
    if (!map.isMap())
        return;
    if (const YAML::Node *id = map.require("id"))
        if (auto v = reader.text(*id, map.field("id")); v && checkModelId(reader, marks.id, *v))
            vm.id = *v;
    if (const YAML::Node *primary = map.require("primary"))
        if (auto v = reader.text(*primary, map.field("primary")))
            vm.primary = *v;
    const YAML::Node *fallbacks = map.get("fallbacks");
    if (!fallbacks || !reader.expectList(*fallbacks, map.field("fallbacks")))
        return;
    std::size_t i = 0;
    for (auto it = fallbacks->begin(); it != fallbacks->end(); ++it, ++i) {
        const QString field = indexField(map.field("fallbacks"), i);
        if (auto v = reader.text(*it, field)) {
            vm.fallbacks.append(*v);
            marks.fallbacks.push_back(reader.where(*it, field));
        }
    }
}

void readVirtualModels(Reader &reader, const YAML::Node &list, const QString &field,
                       std::vector<VirtualModel> &vms, std::vector<VirtualModelMarks> &marks)
{
    readEach(reader, list, field, vms, marks, readVirtualModel);
}

} // namespace

bool isPlainIdentifier(const QString &id)
{
    if (id.isEmpty())
        return false;
    for (const QChar c : id)
        if (c.isSpace() || c.category() == QChar::Other_Control)
            return false;
    return true;
}

bool checkModelId(Reader &reader, const Where &where, const QString &id)
{
    if (!isPlainIdentifier(id)) {
        reader.fail(where, QStringLiteral("must be non-empty, without spaces"));
        return false;
    }
    // Clients append these to any model id to pick a sort order (SPEC §3); an id ending in one
    // could never be requested as itself.
    if (id.endsWith(QStringLiteral(":nitro")) || id.endsWith(QStringLiteral(":floor"))) {
        reader.fail(where, QStringLiteral("must not end in :nitro or :floor (reserved suffixes)"));
        return false;
    }
    return true;
}

void readDocument(Reader &reader, const YAML::Node &root, Config &config, Marks &marks)
{
    MapView map(reader, root, QString(),
                {"listen", "listen_reuse_port", "instance_name", "redis", "redis_unreachable",
                 "redis_lease_s", "admin_token", "database", "currency", "balance", "default_model",
                 "settings", "channels", "models", "virtual_models", "keys"});
    if (!map.isMap())
        return;
    readListen(reader, map, config);
    readScaleOut(reader, map, config);
    map.read("admin_token", config.adminToken);
    map.read("database", config.database);
    if (const YAML::Node *c = map.get("currency"))
        if (auto v = reader.text(*c, map.field("currency"))) {
            if (v->trimmed().isEmpty())
                reader.fail(*c, map.field("currency"), QStringLiteral("must not be empty"));
            else
                config.currency = v->trimmed();
        }
    if (const YAML::Node *b = map.get("balance"))
        if (auto v = reader.number(*b, map.field("balance"), Range()))
            config.balance = *v;
    marks.defaultModel = map.whereOf("default_model");
    if (const YAML::Node *d = map.get("default_model"))
        if (auto v = reader.text(*d, map.field("default_model"))) {
            if (v->isEmpty())
                reader.fail(marks.defaultModel,
                            QStringLiteral("must not be empty (use null for no default model)"));
            else
                config.defaultModel = *v;
        }
    if (const YAML::Node *s = map.get("settings"))
        readSettings(reader, *s, map.field("settings"), config.settings);
    if (const YAML::Node *c = map.get("channels"))
        readChannels(reader, *c, map.field("channels"), config.channels, marks.channels);
    if (const YAML::Node *m = map.get("models"))
        readModels(reader, *m, map.field("models"), config.models, marks.modelIds);
    if (const YAML::Node *v = map.get("virtual_models"))
        readVirtualModels(reader, *v, map.field("virtual_models"), config.virtualModels,
                          marks.virtualModels);
    if (const YAML::Node *k = map.get("keys"))
        readKeys(reader, *k, map.field("keys"), config.keys, marks.keys);
}

} // namespace sy::config::detail

namespace sy::config {

bool parseListenAddress(const QString &text, QString &host, quint16 &port)
{
    int value = 0;
    if (!detail::parseListen(text, host, value) || value > 65535)
        return false;
    port = quint16(value);
    return true;
}

} // namespace sy::config
