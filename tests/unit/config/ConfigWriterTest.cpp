// Writing a Config back out (ConfigWriter.h): every document loads back to an equal Config, in
// YAML and JSON; secrets stay out unless asked for; text and numbers survive exactly.
#include "config/ConfigLoader.h"
#include "config/ConfigWriter.h"

#include <QFile>
#include <QFileInfo>
#include <gtest/gtest.h>

#include <cstring>
#include <iterator>
#include <limits>

using namespace sy::config;
using namespace std::chrono_literals;

namespace {

// The full example of docs/configuration.md (the SPEC §12 example, made loadable).
constexpr char kExample[] = R"yaml(listen: 127.0.0.1:8080
admin_token: ${SWITCHYARD_ADMIN_TOKEN}
database: switchyard.db
currency: USD
balance: 25.00
default_model: null
settings:
  first_chunk_timeout_s: 30
  key_limit_wait_s: 2
  capacity_wait_s: 10
  retry_pause_ms: 200
  max_attempts: 0
  max_body_bytes: 16777216
channels:
  - id: deepseek-main
    provider: deepseek
    base_url: https://api.deepseek.com/v1
    format: openai
    credentials: [${DEEPSEEK_KEY}, ${DEEPSEEK_KEY_2}]
    max_concurrent: 16
    timeouts: {connect_s: 10, first_byte_s: 30, idle_s: 60}
    tier: standard
    quantization: fp8
    data_collection: deny
    zdr: false
    distillable: true
    supported_parameters: [tools, response_format, temperature, top_p, max_tokens, stop]
    models:
      - id: deepseek/deepseek-v4-flash
        upstream: deepseek-chat
        price: {prompt: 0.27, completion: 1.10}
  - id: local
    provider: ollama
    base_url: http://127.0.0.1:11434/v1
    models:
      - id: Qwen/Qwen3.6-35B-A3B      # not under models: -> implicit (enabled, [chat])
        upstream: qwen3.6:35b-a3b
models:
  - id: deepseek/deepseek-v4-flash
    capabilities: [chat, tools]
    context_length: 131072
    deprecated: 2026-05-12
virtual_models:
  - id: team/coder
    primary: deepseek/deepseek-v4-flash
    fallbacks: [Qwen/Qwen3.6-35B-A3B]
keys:
  - name: ide
    secret: ${IDE_KEY}
    allowed_models: [team/coder]
  - name: ci
    secret_sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
    rpm: 60
    spend_limit: 5
)yaml";

constexpr char kCredentialCanary[] = "cred-canary-5d1e";
constexpr char kAdminCanary[] = "admin-canary-77b0";
constexpr char kKeyCanary[] = "key-secret-canary-0c9a";

QProcessEnvironment exampleEnv()
{
    QProcessEnvironment env;
    env.insert("SWITCHYARD_ADMIN_TOKEN", kAdminCanary);
    env.insert("DEEPSEEK_KEY", kCredentialCanary);
    env.insert("DEEPSEEK_KEY_2", "second-credential");
    env.insert("IDE_KEY", kKeyCanary);
    return env;
}

Config load(const QByteArray &text, const QProcessEnvironment &env = {})
{
    const LoadResult result = loadConfigText(text, "written", env);
    for (const ConfigError &e : result.errors)
        ADD_FAILURE() << e.toString().toStdString() << "\nin:\n" << text.toStdString();
    return result.config.value_or(Config{});
}

QByteArray written(const WriteResult &result)
{
    for (const WriteError &e : result.errors)
        ADD_FAILURE() << e.field.toStdString() << ": " << e.message.toStdString();
    return result.document.value_or(QByteArray());
}

QByteArray yaml(const Config &c, Secrets s = Secrets::Include) { return written(writeConfigYaml(c, s)); }
QByteArray json(const Config &c, Secrets s = Secrets::Include) { return written(writeConfigJson(c, s)); }

// Loads `c` back from both documents and expects equality.
void expectRoundTrip(const Config &c)
{
    for (const QByteArray &doc : {yaml(c), json(c)})
        EXPECT_TRUE(load(doc) == c) << doc.toStdString();
}

Config minimal()
{
    return load("channels:\n  - {id: local, provider: ollama, base_url: 'http://h/v1',"
                " models: [{id: m}]}\n");
}

TEST(ConfigWriter, ExampleRoundTripsInYamlAndJson)
{
    const Config original = load(kExample, exampleEnv());
    ASSERT_EQ(original.channels.size(), 2u);
    expectRoundTrip(original);
    // A second generation is byte-identical: writing is deterministic.
    EXPECT_EQ(yaml(load(yaml(original))), yaml(original));
}

TEST(ConfigWriter, DemoWorkspaceRoundTrips)
{
    const QString path = QStringLiteral(SWITCHYARD_SOURCE_DIR "/resources/demo/demo.yaml");
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly)) << path.toStdString();
    QProcessEnvironment env;
    env.insert("SWITCHYARD_SIM_URL", "http://127.0.0.1:1");
    env.insert("SWITCHYARD_DEMO_KEY", "sk-x");
    const Config demo = load(file.readAll(), env);
    ASSERT_EQ(demo.channels.size(), 6u);
    expectRoundTrip(demo);

    // Any single channel taken down in the failure lab leaves another for each of its models, and
    // every non-OpenAI channel shares a model with an OpenAI one (so the formats translate).
    QHash<QString, QStringList> channelsOf, openAiChannelsOf;
    for (const Channel &channel : demo.channels) {
        for (const ChannelModel &model : channel.models) {
            channelsOf[model.id].append(channel.id);
            if (channel.format == u"openai")
                openAiChannelsOf[model.id].append(channel.id);
        }
    }
    for (const Model &model : demo.models)
        EXPECT_GE(channelsOf.value(model.id).size(), 2) << model.id.toStdString();
    QStringList formats;
    for (const Channel &channel : demo.channels) {
        formats.append(channel.format);
        if (channel.format == u"openai")
            continue;
        bool shared = false;
        for (const ChannelModel &model : channel.models)
            shared = shared || !openAiChannelsOf.value(model.id).isEmpty();
        EXPECT_TRUE(shared) << channel.id.toStdString();
    }
    EXPECT_TRUE(formats.contains(QStringLiteral("anthropic")));
    EXPECT_TRUE(formats.contains(QStringLiteral("gemini")));
}

TEST(ConfigWriter, OmitLeavesNoSecretInTheOutput)
{
    const Config original = load(kExample, exampleEnv());
    for (const QByteArray &doc : {yaml(original, Secrets::Omit), json(original, Secrets::Omit)}) {
        EXPECT_FALSE(doc.contains(kCredentialCanary)) << doc.toStdString();
        EXPECT_FALSE(doc.contains("second-credential"));
        EXPECT_FALSE(doc.contains(kAdminCanary));
        EXPECT_FALSE(doc.contains("credentials:") || doc.contains("\"credentials\""));
        EXPECT_FALSE(doc.contains("admin_token:") || doc.contains("\"admin_token\""));
        Config expected = original;
        expected.adminToken.clear();
        for (Channel &ch : expected.channels)
            ch.credentials.clear();
        EXPECT_TRUE(load(doc) == expected);
    }
    EXPECT_TRUE(yaml(original, Secrets::Omit).startsWith("# "));
    EXPECT_TRUE(yaml(original, Secrets::Include).contains(kCredentialCanary));
}

TEST(ConfigWriter, KeysAreWrittenAsHashesOnly)
{
    const Config original = load(kExample, exampleEnv());
    for (const QByteArray &doc : {yaml(original), json(original)}) {
        EXPECT_FALSE(doc.contains(kKeyCanary));
        EXPECT_FALSE(doc.contains("secret:")) << doc.toStdString();
        EXPECT_FALSE(doc.contains("\"secret\""));
        EXPECT_TRUE(doc.contains(original.keys[0].secretSha256));
    }
}

TEST(ConfigWriter, OptionalFieldsAbsentStayAbsent)
{
    const Config c = minimal();
    ASSERT_FALSE(c.balance || c.defaultModel || c.models[0].deprecated);
    for (const QByteArray &doc : {yaml(c), json(c)})
        for (const char *field : {"balance", "default_model", "deprecated", "spend_limit",
                                  "admin_token", "database", "quantization"})
            EXPECT_FALSE(doc.contains(field)) << field << " in " << doc.toStdString();
    expectRoundTrip(c);
}

TEST(ConfigWriter, ChannelTransportSettingsRoundTrip)
{
    Config c = minimal();
    c.channels[0].auth = QStringLiteral("api-key");
    c.channels[0].tls.caFile = QStringLiteral("/etc/ca.pem");
    c.channels[0].tls.insecure = true;
    c.channels[0].proxy = QStringLiteral("http://127.0.0.1:3128");
    c.channels[0].probeIntervalS = 60;
    for (const QByteArray &doc : {yaml(c), json(c)})
        EXPECT_TRUE(doc.contains("insecure") && doc.contains("proxy") && doc.contains("probe_interval_s"))
            << doc.toStdString();
    expectRoundTrip(c);
}

TEST(ConfigWriter, DefaultTransportSettingsAreNotWritten)
{
    for (const QByteArray &doc : {yaml(minimal()), json(minimal())})
        for (const char *field : {"auth", "tls", "proxy", "probe_interval_s"})
            EXPECT_FALSE(doc.contains(field)) << field << " in " << doc.toStdString();
}

TEST(ConfigWriter, LogSettingsRoundTrip)
{
    Config c = minimal();
    c.settings.logRetentionDays = 0;
    c.settings.logRetentionCount = 7;
    c.settings.logMessageContent = true;
    for (const QByteArray &doc : {yaml(c), json(c)}) {
        const Config back = load(doc);
        EXPECT_EQ(back.settings.logRetentionDays, 0) << doc.toStdString();
        EXPECT_EQ(back.settings.logRetentionCount, 7) << doc.toStdString();
        EXPECT_TRUE(back.settings.logMessageContent) << doc.toStdString();
    }
    expectRoundTrip(c);
}

TEST(ConfigWriter, YamlLayoutFollowsTheSpec)
{
    Config c = minimal();
    c.keys.push_back(Key{"k", QByteArray(64, 'a'), 0, 0, 2.5, {"m"}, true});
    c.balance = 10;
    const QByteArray expected = R"(listen: 127.0.0.1:8080
currency: USD
balance: 10
settings:
  first_chunk_timeout_s: 30
  key_limit_wait_s: 2
  capacity_wait_s: 10
  retry_pause_ms: 200
  max_attempts: 0
  max_body_bytes: 16777216
  log_retention_days: 30
  log_retention_count: 100000
  log_message_content: false
  max_request_s: 3600
  max_stream_event_bytes: 1048576
channels:
  - id: local
    provider: ollama
    base_url: http://h/v1
    format: openai
    credentials: []
    enabled: true
    max_concurrent: 0
    timeouts: {connect_s: 10, first_byte_s: 30, idle_s: 60}
    tier: standard
    data_collection: allow
    zdr: false
    distillable: false
    supported_parameters: []
    models:
      - id: m
        upstream: m
        price: {prompt: 0, completion: 0}
models:
  - id: m
    enabled: true
    free: false
    capabilities: [chat]
    context_length: 0
    rpm_per_key: 0
virtual_models: []
keys:
  - name: k
    secret_sha256: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
    rpm: 0
    max_concurrent: 0
    spend_limit: 2.5
    allowed_models: [m]
    enabled: true
)";
    EXPECT_EQ(yaml(c).toStdString(), expected.toStdString());
    EXPECT_TRUE(json(c).startsWith(R"({"listen":"127.0.0.1:8080","currency":"USD","balance":10,)"));
    EXPECT_FALSE(json(c).contains('\n'));
    expectRoundTrip(c);
}

TEST(ConfigWriter, AwkwardTextRoundTrips)
{
    const QStringList awkward{
        "he said \"hi\": ok", "  leading spaces", "trailing  ", "a:b", "trailing:", "key: value",
        "null", "Null", "~", "true", "no", "123", "1e3", "0x1A", "", " ", "- dash", "-", "#hash",
        "a #b", "[x]", "{y}", "a, b", "'single'", "@at", "`tick", "%pct", "&anchor", "*alias",
        "!tag", "|", ">", "?", "tab\there", "line\nbreak\r\n", "back\\slash", "$5 cost", "$",
        "end$", "ünïcødé ✓ 模型 🚀", QString(QChar(0x2028)) + "ls", QString(QChar(0x85)),
        "\x7f\x01", "b" + QString(QChar(0xFEFF)) + "om", "---", "...", "2026-05-12", "http://x/y?z=1"};
    Config c = minimal();
    c.channels[0].supportedParameters = awkward;
    c.channels[0].credentials = {"sk-\"quoted\": x", " spaced ", "ключ"};
    c.channels[0].quantization = "q: \"4\"";
    c.channels[0].models[0].upstream = "  upstream: ü\n";
    c.adminToken = "tok#en: x";
    c.database = "postgres://u:p@h/db name";
    c.models[0].id = "модель/ü";
    c.channels[0].models[0].id = "модель/ü";
    expectRoundTrip(c);
    // Words other YAML readers would type (booleans, numbers, null) are quoted; slugs are not.
    EXPECT_TRUE(yaml(c).contains(R"(, "true", "no", "123", "1e3", "0x1A", )"));
    EXPECT_TRUE(yaml(c).contains("base_url: http://h/v1\n"));
}

TEST(ConfigWriter, NumbersRoundTripExactly)
{
    const double values[] = {0.1, 1e-7, 0.27, 1.10, 1.0 / 3, 5e-324, 1.7976931348623157e308,
                             123456789.123, 0.30000000000000004, 0};
    Config c = minimal();
    c.channels[0].models.clear();
    for (std::size_t i = 0; i < std::size(values); ++i)
        c.channels[0].models.push_back(
            ChannelModel{QStringLiteral("m%1").arg(i), "up", {values[i], values[i] / 2}});
    c.models.clear();
    c.balance = -0.1;
    c.keys.push_back(Key{"k", QByteArray(64, 'b'), 0, 0, 0.1, {}, true});
    c.channels[0].timeouts = {1500ms, 1ms, 86'400'000ms};
    const Config back = load(yaml(c));
    for (std::size_t i = 0; i < std::size(values); ++i)
        EXPECT_EQ(std::memcmp(&back.channels[0].models[i].price.prompt, &values[i], sizeof(double)), 0)
            << i;
    expectRoundTrip(load(yaml(c)));   // with the implicit models the loader added
    EXPECT_TRUE(yaml(c).contains("{prompt: 0.1, completion: 0.05}"));
    EXPECT_TRUE(yaml(c).contains("prompt: 1e-07"));
    EXPECT_TRUE(yaml(c).contains("{connect_s: 1.5, first_byte_s: 0.001, idle_s: 86400}"));
}

TEST(ConfigWriter, ListenForms)
{
    Config c = minimal();
    c.listenHost = "::1";
    c.listenPort = 0;
    EXPECT_TRUE(yaml(c).startsWith("listen: \"[::1]:0\"\n"));
    expectRoundTrip(c);
    c.listenHost = "localhost";
    c.listenPort = 65535;
    expectRoundTrip(c);
}

TEST(ConfigWriter, RefusesTextTheLoaderWouldExpand)
{
    Config c = minimal();
    c.channels[0].credentials = {"ok", "${NOT_A_VARIABLE}"};
    for (const WriteResult &r : {writeConfigYaml(c, Secrets::Include), writeConfigJson(c, Secrets::Include)}) {
        ASSERT_FALSE(r.ok());
        ASSERT_EQ(r.errors.size(), 1u);
        EXPECT_EQ(r.errors[0].field, "channels[0].credentials[1]");
        EXPECT_FALSE(r.errors[0].message.contains("NOT_A_VARIABLE"));
    }
    // Omitted credentials are not written, so they cannot be in the way.
    EXPECT_TRUE(writeConfigYaml(c, Secrets::Omit).ok());
    c.database = "a${B}";
    EXPECT_EQ(writeConfigJson(c, Secrets::Omit).errors.at(0).field, "database");
}

TEST(ConfigWriter, RefusesValuesWithoutAWrittenForm)
{
    Config c = minimal();
    c.balance = std::numeric_limits<double>::quiet_NaN();
    c.models[0].deprecated = QDate();
    c.keys.push_back(Key{"k", QByteArray(64, 'a'), 0, 0, std::numeric_limits<double>::infinity(),
                         {QChar(0xFEFF) + QString("m")}, true});   // a leading BOM is lost on load
    c.channels[0].quantization = QString(QChar(0xD800));              // lone surrogate
    const WriteResult r = writeConfigYaml(c, Secrets::Include);
    ASSERT_EQ(r.errors.size(), 5u);
    EXPECT_EQ(r.errors[0].field, "balance");
    EXPECT_EQ(r.errors[1].field, "channels[0].quantization");
    EXPECT_EQ(r.errors[2].field, "models[0].deprecated");
    EXPECT_EQ(r.errors[3].field, "keys[0].spend_limit");
    EXPECT_EQ(r.errors[4].field, "keys[0].allowed_models[0]");
    EXPECT_FALSE(writeConfigJson(c, Secrets::Omit).ok());
}

TEST(ConfigWriter, EqualitySeesEveryChange)
{
    const Config base = load(kExample, exampleEnv());
    EXPECT_TRUE(base == base);
    Config c = base;
    c.channels[1].timeouts.idle += 1ms;
    EXPECT_FALSE(c == base);
    c = base;
    c.keys[1].spendLimit.reset();
    EXPECT_FALSE(c == base);
    c = base;
    c.models[0].deprecated = c.models[0].deprecated->addDays(1);
    EXPECT_FALSE(c == base);
    c = base;
    c.settings.maxBodyBytes += 1;
    EXPECT_TRUE(c != base);
    c = base;
    c.settings.logRetentionDays += 1;
    EXPECT_TRUE(c != base);
    c = base;
    c.settings.logRetentionCount += 1;
    EXPECT_TRUE(c != base);
    c = base;
    c.settings.logMessageContent = !c.settings.logMessageContent;
    EXPECT_TRUE(c != base);
}

} // namespace
