// Writing a Config as a configuration document. The Config is first turned into a small ordered
// tree (Value), collecting every value that cannot be written; the tree is then printed as YAML or
// as JSON. Text is written plain in YAML only when it is unambiguously the same string; anything
// else is double-quoted with escapes that YAML and JSON share.
#include "config/ConfigWriter.h"
#include "config/RedisUrl.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>
#include <utility>

namespace sy::config {

namespace {

// A node of the document. `raw` holds a number or boolean exactly as it is to be printed.
struct Value {
    enum class Kind { Raw, Text, List, Map };
    Kind kind = Kind::Raw;
    QByteArray raw;
    QString text;
    std::vector<Value> items;
    std::vector<std::pair<const char *, Value>> entries;
    bool flow = false;   // YAML: printed inline ([a, b], {k: v}) rather than as a block
};

Value raw(QByteArray bytes) { return Value{Value::Kind::Raw, std::move(bytes), {}, {}, {}, false}; }
Value boolean(bool b) { return raw(b ? "true" : "false"); }
Value integer(qint64 v) { return raw(QByteArray::number(v)); }
Value list(bool flow) { return Value{Value::Kind::List, {}, {}, {}, {}, flow}; }
Value map(bool flow) { return Value{Value::Kind::Map, {}, {}, {}, {}, flow}; }

void put(Value &m, const char *key, Value v) { m.entries.emplace_back(key, std::move(v)); }

// Builds values, recording those that cannot be written. Error messages never include the value.
class Builder {
public:
    std::vector<WriteError> errors;

    Value text(const QString &field, const QString &s)
    {
        if (!s.isValidUtf16())
            fail(field, QStringLiteral("is not valid Unicode text"));
        if (s.startsWith(QChar(0xFEFF)))   // UTF-8 decoding in the loader drops a leading BOM
            fail(field, QStringLiteral("starts with U+FEFF (a byte-order mark), which loading drops"));
        for (qsizetype i = 0; i + 1 < s.size(); ++i)
            if (s.at(i) == u'$' && (s.at(i + 1) == u'{' || s.at(i + 1) == QChar(0x1A))) {
                fail(field, QStringLiteral("contains \"${\", which a configuration file cannot "
                                           "express (it always starts a variable reference)"));
                break;
            }
        return Value{Value::Kind::Text, {}, s, {}, {}, false};
    }

    Value textList(const QString &field, const QStringList &texts)
    {
        Value out = list(true);
        for (qsizetype i = 0; i < texts.size(); ++i)
            out.items.push_back(text(QStringLiteral("%1[%2]").arg(field).arg(i), texts.at(i)));
        return out;
    }

    // Shortest text that parses back (std::from_chars, as the loader does) to exactly `v`.
    Value number(const QString &field, double v)
    {
        if (!std::isfinite(v)) {
            fail(field, QStringLiteral("is not a finite number"));
            return raw("0");
        }
        char buffer[32];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, v);
        return raw(QByteArray(buffer, result.ptr - buffer));
    }

    // Milliseconds as seconds with up to three decimals: 1500 -> 1.5, 10000 -> 10.
    static Value seconds(std::chrono::milliseconds ms)
    {
        const qint64 count = ms.count();
        const qint64 magnitude = count < 0 ? -count : count;
        QByteArray out = (count < 0 ? "-" : "") + QByteArray::number(magnitude / 1000);
        if (const qint64 fraction = magnitude % 1000) {
            QByteArray digits = QByteArray::number(fraction).rightJustified(3, '0');
            while (digits.endsWith('0'))
                digits.chop(1);
            out += '.' + digits;
        }
        return raw(out);
    }

    Value date(const QString &field, const QDate &d)
    {
        if (!d.isValid())
            fail(field, QStringLiteral("is not a valid date"));
        return text(field, d.toString(QStringLiteral("yyyy-MM-dd")));
    }

private:
    void fail(const QString &field, const QString &message) { errors.push_back({field, message}); }
};

QString at(const QString &path, std::size_t i) { return QStringLiteral("%1[%2]").arg(path).arg(i); }

Value channelValue(Builder &b, const Channel &c, const QString &p, Secrets secrets)
{
    Value m = map(false);
    put(m, "id", b.text(p + ".id", c.id));
    put(m, "provider", b.text(p + ".provider", c.provider));
    put(m, "base_url", b.text(p + ".base_url", c.baseUrl));
    put(m, "format", b.text(p + ".format", c.format));
    if (secrets == Secrets::Include)
        put(m, "credentials", b.textList(p + ".credentials", c.credentials));
    put(m, "enabled", boolean(c.enabled));
    put(m, "max_concurrent", integer(c.maxConcurrent));
    Value t = map(true);
    put(t, "connect_s", Builder::seconds(c.timeouts.connect));
    put(t, "first_byte_s", Builder::seconds(c.timeouts.firstByte));
    put(t, "idle_s", Builder::seconds(c.timeouts.idle));
    put(m, "timeouts", std::move(t));
    put(m, "tier", b.text(p + ".tier", c.tier));
    if (!c.quantization.isEmpty())
        put(m, "quantization", b.text(p + ".quantization", c.quantization));
    put(m, "data_collection", b.text(p + ".data_collection", c.dataCollection));
    put(m, "zdr", boolean(c.zdr));
    put(m, "distillable", boolean(c.distillable));
    put(m, "supported_parameters", b.textList(p + ".supported_parameters", c.supportedParameters));
    Value models = list(false);
    for (std::size_t i = 0; i < c.models.size(); ++i) {
        const ChannelModel &cm = c.models[i];
        const QString mp = at(p + ".models", i);
        Value e = map(false);
        put(e, "id", b.text(mp + ".id", cm.id));
        put(e, "upstream", b.text(mp + ".upstream", cm.upstream));
        Value price = map(true);
        put(price, "prompt", b.number(mp + ".price.prompt", cm.price.prompt));
        put(price, "completion", b.number(mp + ".price.completion", cm.price.completion));
        put(e, "price", std::move(price));
        models.items.push_back(std::move(e));
    }
    put(m, "models", std::move(models));
    if (!c.auth.isEmpty())
        put(m, "auth", b.text(p + ".auth", c.auth));
    if (!c.tls.caFile.isEmpty() || c.tls.insecure) {
        Value tls = map(true);
        if (!c.tls.caFile.isEmpty())
            put(tls, "ca_file", b.text(p + ".tls.ca_file", c.tls.caFile));
        put(tls, "insecure", boolean(c.tls.insecure));
        put(m, "tls", std::move(tls));
    }
    if (!c.proxy.isEmpty())
        put(m, "proxy", b.text(p + ".proxy", c.proxy));
    if (c.probeIntervalS > 0)
        put(m, "probe_interval_s", integer(c.probeIntervalS));
    return m;
}

Value modelValue(Builder &b, const Model &model, const QString &p)
{
    Value m = map(false);
    put(m, "id", b.text(p + ".id", model.id));
    put(m, "enabled", boolean(model.enabled));
    put(m, "free", boolean(model.free));
    put(m, "capabilities", b.textList(p + ".capabilities", model.capabilities));
    put(m, "context_length", integer(model.contextLength));
    if (model.deprecated)
        put(m, "deprecated", b.date(p + ".deprecated", *model.deprecated));
    put(m, "rpm_per_key", integer(model.rpmPerKey));
    return m;
}

Value keyValue(Builder &b, const Key &key, const QString &p)
{
    Value m = map(false);
    put(m, "name", b.text(p + ".name", key.name));
    put(m, "secret_sha256", b.text(p + ".secret_sha256", QString::fromLatin1(key.secretSha256)));
    put(m, "rpm", integer(key.rpm));
    put(m, "max_concurrent", integer(key.maxConcurrent));
    if (key.spendLimit)
        put(m, "spend_limit", b.number(p + ".spend_limit", *key.spendLimit));
    put(m, "allowed_models", b.textList(p + ".allowed_models", key.allowedModels));
    put(m, "enabled", boolean(key.enabled));
    return m;
}

Value documentValue(Builder &b, const Config &c, Secrets secrets)
{
    Value doc = map(false);
    const QString host = c.listenHost.contains(u':') ? u'[' + c.listenHost + u']' : c.listenHost;
    put(doc, "listen", b.text("listen", host + u':' + QString::number(c.listenPort)));
    if (c.listenReusePort)
        put(doc, "listen_reuse_port", boolean(true));
    if (!c.instanceName.isEmpty())
        put(doc, "instance_name", b.text("instance_name", c.instanceName));
    if (!c.redis.isEmpty()) {
        // The password is a secret like the admin token: an export without secrets masks it.
        put(doc, "redis", b.text("redis", secrets == Secrets::Include ? c.redis : redactedRedisUrl(c.redis)));
        put(doc, "redis_unreachable", b.text("redis_unreachable", c.redisUnreachable));
        put(doc, "redis_lease_s", integer(c.redisLeaseS));
    }
    if (secrets == Secrets::Include && !c.adminToken.isEmpty())
        put(doc, "admin_token", b.text("admin_token", c.adminToken));
    if (!c.database.isEmpty())
        put(doc, "database", b.text("database", c.database));
    put(doc, "currency", b.text("currency", c.currency));
    if (c.balance)
        put(doc, "balance", b.number("balance", *c.balance));
    if (c.defaultModel)
        put(doc, "default_model", b.text("default_model", *c.defaultModel));
    Value s = map(false);
    put(s, "first_chunk_timeout_s", integer(c.settings.firstChunkTimeoutS));
    put(s, "key_limit_wait_s", integer(c.settings.keyLimitWaitS));
    put(s, "capacity_wait_s", integer(c.settings.capacityWaitS));
    put(s, "retry_pause_ms", integer(c.settings.retryPauseMs));
    put(s, "max_attempts", integer(c.settings.maxAttempts));
    put(s, "max_body_bytes", integer(c.settings.maxBodyBytes));
    put(s, "log_retention_days", integer(c.settings.logRetentionDays));
    put(s, "log_retention_count", integer(c.settings.logRetentionCount));
    put(s, "log_message_content", boolean(c.settings.logMessageContent));
    put(s, "max_request_s", integer(c.settings.maxRequestS));
    put(s, "max_stream_event_bytes", integer(c.settings.maxStreamEventBytes));
    put(doc, "settings", std::move(s));
    Value channels = list(false), models = list(false), virtuals = list(false), keys = list(false);
    for (std::size_t i = 0; i < c.channels.size(); ++i)
        channels.items.push_back(channelValue(b, c.channels[i], at("channels", i), secrets));
    for (std::size_t i = 0; i < c.models.size(); ++i)
        models.items.push_back(modelValue(b, c.models[i], at("models", i)));
    for (std::size_t i = 0; i < c.virtualModels.size(); ++i) {
        const VirtualModel &vm = c.virtualModels[i];
        const QString p = at("virtual_models", i);
        Value m = map(false);
        put(m, "id", b.text(p + ".id", vm.id));
        put(m, "primary", b.text(p + ".primary", vm.primary));
        put(m, "fallbacks", b.textList(p + ".fallbacks", vm.fallbacks));
        virtuals.items.push_back(std::move(m));
    }
    for (std::size_t i = 0; i < c.keys.size(); ++i)
        keys.items.push_back(keyValue(b, c.keys[i], at("keys", i)));
    put(doc, "channels", std::move(channels));
    put(doc, "models", std::move(models));
    put(doc, "virtual_models", std::move(virtuals));
    put(doc, "keys", std::move(keys));
    return doc;
}

// A double-quoted string valid in both JSON and YAML. Line breaks, control characters and the
// characters YAML treats as breaks or byte-order marks are escaped; other text stays UTF-8.
QByteArray quoted(const QString &s)
{
    QString out(u'"');
    for (const QChar c : s) {
        const char16_t u = c.unicode();
        if (u == u'"' || u == u'\\')
            out += QStringLiteral("\\") + c;
        else if (u == u'\n')
            out += QStringLiteral("\\n");
        else if (u == u'\t')
            out += QStringLiteral("\\t");
        else if (u < 0x20 || (u >= 0x7F && u <= 0x9F) || u == 0x2028 || u == 0x2029 || u == 0xFEFF)
            out += QStringLiteral("\\u%1").arg(int(u), 4, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return (out + u'"').toUtf8();
}

// True when `s` written unquoted is read by YAML as exactly the text `s`, in a block value or,
// with `inFlow`, inside [ ] / { }. Conservative: identifiers, slugs and URLs stay plain; anything
// with spaces or indicators, and words another YAML reader would take as null, a boolean or a
// number, is quoted.
bool plainSafe(const QString &s, bool inFlow)
{
    static const QStringList typedWords{"null", "true", "false", "yes", "no", "on", "off", "y", "n"};
    if (s.isEmpty() || s.endsWith(u':') || typedWords.contains(s, Qt::CaseInsensitive))
        return false;
    bool isNumber = false;
    s.toDouble(&isNumber);
    const QChar first = s.front();
    if (isNumber || s.startsWith(u"0x") || s.startsWith(u"0o") || first.unicode() > 0x7F
        || !(first.isLetterOrNumber() || first == u'_' || first == u'/'))
        return false;
    return std::all_of(s.begin(), s.end(), [inFlow](QChar c) {
        const char16_t u = c.unicode();
        return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9')
            || u == u'_' || u == u'.' || u == u'/' || u == u'-' || u == u'+' || u == u'@'
            || (u == u':' && !inFlow);
    });
}

enum class Style { Yaml, Json };

// A value on one line: YAML flow style ([a, b], {k: v}) or compact JSON.
void printInline(QByteArray &out, const Value &v, Style style, bool inFlow)
{
    const bool yaml = style == Style::Yaml;
    switch (v.kind) {
    case Value::Kind::Raw:
        out += v.raw;
        break;
    case Value::Kind::Text:
        out += yaml && plainSafe(v.text, inFlow) ? v.text.toUtf8() : quoted(v.text);
        break;
    case Value::Kind::List:
        out += '[';
        for (std::size_t i = 0; i < v.items.size(); ++i) {
            out += i == 0 ? "" : yaml ? ", " : ",";
            printInline(out, v.items[i], style, true);
        }
        out += ']';
        break;
    case Value::Kind::Map:
        out += '{';
        for (std::size_t i = 0; i < v.entries.size(); ++i) {
            const QByteArray key(v.entries[i].first);
            out += (i == 0 ? "" : yaml ? ", " : ",") + (yaml ? key + ": " : '"' + key + "\":");
            printInline(out, v.entries[i].second, style, true);
        }
        out += '}';
        break;
    }
}

// Entries one per line at `indent`; with `continuesLine` the first one follows a "- " already
// written. Non-empty block maps and lists (always of maps) nest below their key.
void yamlBlock(QByteArray &out, const Value &m, int indent, bool continuesLine)
{
    for (std::size_t i = 0; i < m.entries.size(); ++i) {
        const auto &[key, v] = m.entries[i];
        if (i > 0 || !continuesLine)
            out += QByteArray(indent, ' ');
        out += QByteArray(key) + ':';
        if (v.kind == Value::Kind::Map && !v.flow && !v.entries.empty()) {
            out += '\n';
            yamlBlock(out, v, indent + 2, false);
        } else if (v.kind == Value::Kind::List && !v.flow && !v.items.empty()) {
            out += '\n';
            for (const Value &item : v.items) {
                out += QByteArray(indent + 2, ' ') + "- ";
                if (item.entries.empty())
                    out += "{}\n";
                else
                    yamlBlock(out, item, indent + 4, true);
            }
        } else {
            out += ' ';
            printInline(out, v, Style::Yaml, false);
            out += '\n';
        }
    }
}

template <typename Print>
WriteResult write(const Config &config, Secrets secrets, Print print)
{
    Builder builder;
    const Value doc = documentValue(builder, config, secrets);
    if (!builder.errors.empty())
        return {std::nullopt, std::move(builder.errors)};
    return {print(doc), {}};
}

// The fields compared by operator==, in declaration order.
auto fields(const Price &p) { return std::tie(p.prompt, p.completion); }
auto fields(const ChannelModel &m) { return std::tie(m.id, m.upstream, m.price); }
auto fields(const Timeouts &t) { return std::tie(t.connect, t.firstByte, t.idle); }
auto fields(const Tls &t) { return std::tie(t.caFile, t.insecure); }
auto fields(const Channel &c)
{
    return std::tie(c.id, c.provider, c.baseUrl, c.format, c.credentials, c.enabled,
                    c.maxConcurrent, c.timeouts, c.tier, c.quantization, c.dataCollection, c.zdr,
                    c.distillable, c.supportedParameters, c.models, c.auth, c.tls, c.proxy,
                    c.probeIntervalS);
}
auto fields(const Model &m)
{
    return std::tie(m.id, m.enabled, m.free, m.capabilities, m.contextLength, m.deprecated,
                    m.rpmPerKey);
}
auto fields(const VirtualModel &v) { return std::tie(v.id, v.primary, v.fallbacks); }
auto fields(const Key &k)
{
    return std::tie(k.name, k.secretSha256, k.rpm, k.maxConcurrent, k.spendLimit, k.allowedModels,
                    k.enabled);
}
auto fields(const Settings &s)
{
    return std::tie(s.firstChunkTimeoutS, s.keyLimitWaitS, s.capacityWaitS, s.retryPauseMs,
                    s.maxAttempts, s.maxBodyBytes, s.logRetentionDays, s.logRetentionCount,
                    s.logMessageContent, s.maxRequestS, s.maxStreamEventBytes);
}
auto fields(const Config &c)
{
    return std::tie(c.listenHost, c.listenPort, c.listenReusePort, c.instanceName, c.redis,
                    c.redisUnreachable, c.redisLeaseS, c.adminToken, c.database, c.currency, c.balance,
                    c.defaultModel, c.settings, c.channels, c.models, c.virtualModels, c.keys);
}

} // namespace

WriteResult writeConfigYaml(const Config &config, Secrets secrets)
{
    return write(config, secrets, [secrets](const Value &doc) {
        QByteArray out;
        if (secrets == Secrets::Omit)
            out += "# Exported without secrets: channel credentials and the admin token are omitted.\n";
        yamlBlock(out, doc, 0, false);
        return out;
    });
}

WriteResult writeConfigJson(const Config &config, Secrets secrets)
{
    return write(config, secrets, [](const Value &doc) {
        QByteArray out;
        printInline(out, doc, Style::Json, false);
        return out;
    });
}

bool operator==(const Price &a, const Price &b) { return fields(a) == fields(b); }
bool operator==(const ChannelModel &a, const ChannelModel &b) { return fields(a) == fields(b); }
bool operator==(const Timeouts &a, const Timeouts &b) { return fields(a) == fields(b); }
bool operator==(const Tls &a, const Tls &b) { return fields(a) == fields(b); }
bool operator==(const Channel &a, const Channel &b) { return fields(a) == fields(b); }
bool operator==(const Model &a, const Model &b) { return fields(a) == fields(b); }
bool operator==(const VirtualModel &a, const VirtualModel &b) { return fields(a) == fields(b); }
bool operator==(const Key &a, const Key &b) { return fields(a) == fields(b); }
bool operator==(const Settings &a, const Settings &b) { return fields(a) == fields(b); }
bool operator==(const Config &a, const Config &b) { return fields(a) == fields(b); }

} // namespace sy::config
