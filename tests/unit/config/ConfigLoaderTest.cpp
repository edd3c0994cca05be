// Loading valid configuration files: the SPEC §12 example (YAML and JSON), defaults, `${NAME}`
// expansion, implicit models, listen forms and secret hashing.
#include "config/ConfigLoader.h"

#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>

using namespace sy::config;
using namespace std::chrono_literals;

namespace {

// SHA-256("abc"), the FIPS 180-2 test vector.
constexpr char kAbcSha256[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

QProcessEnvironment specEnv()
{
    QProcessEnvironment env;
    env.insert("SWITCHYARD_ADMIN_TOKEN", "admin-token-1");
    env.insert("DEEPSEEK_KEY", "ds-key-1");
    env.insert("DEEPSEEK_KEY_2", "ds-key-2");
    env.insert("IDE_KEY", "abc");
    return env;
}

// SPEC §12 verbatim, except that the fallback model Qwen/Qwen3.6-35B-A3B is declared under
// `models:`: the SPEC's example names it nowhere else, and a virtual model's targets must exist.
constexpr char kSpecExample[] = R"yaml(listen: 127.0.0.1:8080            # the gateway's address (loopback by default)
admin_token: ${SWITCHYARD_ADMIN_TOKEN}   # admin API; generated and shown once if absent
database: switchyard.db           # SQLite file (default under the XDG data dir) or postgres://…
currency: USD
balance: 25.00                    # starting balance; later top-ups happen in the dashboard
default_model: null               # optional last-resort chat model
settings:                         # all optional; these are the defaults
  first_chunk_timeout_s: 30
  key_limit_wait_s: 2
  capacity_wait_s: 10
  retry_pause_ms: 200
  max_attempts: 0                 # 0 = every candidate
channels:
  - id: deepseek-main             # unique; shown in headers and the dashboard
    provider: deepseek            # provider slug used by `provider.only/ignore/order`
    base_url: https://api.deepseek.com/v1
    format: openai                # openai | anthropic | gemini
    credentials: [${DEEPSEEK_KEY}, ${DEEPSEEK_KEY_2}]
    max_concurrent: 16            # 0 = unlimited
    timeouts: {connect_s: 10, first_byte_s: 30, idle_s: 60}
    tier: standard                # standard | priority | flex
    quantization: fp8
    data_collection: deny         # allow | deny
    zdr: false
    distillable: true
    supported_parameters: [tools, response_format, temperature, top_p, max_tokens, stop]
    models:
      - id: deepseek/deepseek-v4-flash
        upstream: deepseek-chat   # model name sent upstream
        price: {prompt: 0.27, completion: 1.10}   # per 1M tokens
models:
  - id: deepseek/deepseek-v4-flash
    enabled: true
    free: false
    capabilities: [chat, tools]   # chat, tools, vision, json, embeddings
    context_length: 131072
    deprecated: 2026-05-12        # optional sunset date
    rpm_per_key: 0                # 0 = no per-model limit
  - id: Qwen/Qwen3.6-35B-A3B
virtual_models:
  - id: team/coder
    primary: deepseek/deepseek-v4-flash
    fallbacks: [Qwen/Qwen3.6-35B-A3B]
keys:
  - name: ide
    secret: ${IDE_KEY}            # or `secret_sha256: …`; created keys are stored hashed
    rpm: 0                        # 0 = off
    max_concurrent: 0
    spend_limit: null
    allowed_models: []            # empty = all
)yaml";

constexpr char kSpecExampleJson[] = R"json({
  "listen": "127.0.0.1:8080",
  "admin_token": "${SWITCHYARD_ADMIN_TOKEN}",
  "database": "switchyard.db",
  "currency": "USD",
  "balance": 25.00,
  "default_model": null,
  "settings": {"first_chunk_timeout_s": 30, "key_limit_wait_s": 2, "capacity_wait_s": 10,
               "retry_pause_ms": 200, "max_attempts": 0},
  "channels": [{
    "id": "deepseek-main", "provider": "deepseek", "base_url": "https://api.deepseek.com/v1",
    "format": "openai", "credentials": ["${DEEPSEEK_KEY}", "${DEEPSEEK_KEY_2}"],
    "max_concurrent": 16, "timeouts": {"connect_s": 10, "first_byte_s": 30, "idle_s": 60},
    "tier": "standard", "quantization": "fp8", "data_collection": "deny", "zdr": false,
    "distillable": true,
    "supported_parameters": ["tools", "response_format", "temperature", "top_p", "max_tokens", "stop"],
    "models": [{"id": "deepseek/deepseek-v4-flash", "upstream": "deepseek-chat",
                "price": {"prompt": 0.27, "completion": 1.10}}]
  }],
  "models": [
    {"id": "deepseek/deepseek-v4-flash", "enabled": true, "free": false,
     "capabilities": ["chat", "tools"], "context_length": 131072, "deprecated": "2026-05-12",
     "rpm_per_key": 0},
    {"id": "Qwen/Qwen3.6-35B-A3B"}
  ],
  "virtual_models": [{"id": "team/coder", "primary": "deepseek/deepseek-v4-flash",
                      "fallbacks": ["Qwen/Qwen3.6-35B-A3B"]}],
  "keys": [{"name": "ide", "secret": "${IDE_KEY}", "rpm": 0, "max_concurrent": 0,
            "spend_limit": null, "allowed_models": []}]
})json";

Config loadOk(const QByteArray &text, const QProcessEnvironment &env = specEnv())
{
    const LoadResult result = loadConfigText(text, "test.yaml", env);
    for (const ConfigError &e : result.errors)
        ADD_FAILURE() << e.toString().toStdString();
    EXPECT_TRUE(result.config.has_value());
    return result.config.value_or(Config{});
}

// Every value of the SPEC example, whichever syntax it was written in.
void expectSpecExample(const Config &c)
{
    EXPECT_EQ(c.listenHost, "127.0.0.1");
    EXPECT_EQ(c.listenPort, 8080);
    EXPECT_EQ(c.adminToken, "admin-token-1");
    EXPECT_EQ(c.database, "switchyard.db");
    EXPECT_EQ(c.currency, "USD");
    ASSERT_TRUE(c.balance.has_value());
    EXPECT_DOUBLE_EQ(*c.balance, 25.0);
    EXPECT_FALSE(c.defaultModel.has_value());
    EXPECT_EQ(c.settings.firstChunkTimeoutS, 30);
    EXPECT_EQ(c.settings.keyLimitWaitS, 2);
    EXPECT_EQ(c.settings.capacityWaitS, 10);
    EXPECT_EQ(c.settings.retryPauseMs, 200);
    EXPECT_EQ(c.settings.maxAttempts, 0);
    EXPECT_EQ(c.settings.maxBodyBytes, 16 * 1024 * 1024);
    EXPECT_EQ(c.settings.logRetentionDays, 30);
    EXPECT_EQ(c.settings.logRetentionCount, 100000);
    EXPECT_FALSE(c.settings.logMessageContent);

    ASSERT_EQ(c.channels.size(), 1u);
    const Channel &ch = c.channels[0];
    EXPECT_EQ(ch.id, "deepseek-main");
    EXPECT_EQ(ch.provider, "deepseek");
    EXPECT_EQ(ch.baseUrl, "https://api.deepseek.com/v1");
    EXPECT_EQ(ch.format, "openai");
    EXPECT_EQ(ch.credentials, QStringList({"ds-key-1", "ds-key-2"}));
    EXPECT_TRUE(ch.enabled);
    EXPECT_EQ(ch.maxConcurrent, 16);
    EXPECT_EQ(ch.timeouts.connect, 10s);
    EXPECT_EQ(ch.timeouts.firstByte, 30s);
    EXPECT_EQ(ch.timeouts.idle, 60s);
    EXPECT_EQ(ch.tier, "standard");
    EXPECT_EQ(ch.quantization, "fp8");
    EXPECT_EQ(ch.dataCollection, "deny");
    EXPECT_FALSE(ch.zdr);
    EXPECT_TRUE(ch.distillable);
    EXPECT_EQ(ch.supportedParameters,
              QStringList({"tools", "response_format", "temperature", "top_p", "max_tokens", "stop"}));
    ASSERT_EQ(ch.models.size(), 1u);
    EXPECT_EQ(ch.models[0].id, "deepseek/deepseek-v4-flash");
    EXPECT_EQ(ch.models[0].upstream, "deepseek-chat");
    EXPECT_DOUBLE_EQ(ch.models[0].price.prompt, 0.27);
    EXPECT_DOUBLE_EQ(ch.models[0].price.completion, 1.10);

    ASSERT_EQ(c.models.size(), 2u);
    const Model &m = c.models[0];
    EXPECT_EQ(m.id, "deepseek/deepseek-v4-flash");
    EXPECT_TRUE(m.enabled);
    EXPECT_FALSE(m.free);
    EXPECT_EQ(m.capabilities, QStringList({"chat", "tools"}));
    EXPECT_EQ(m.contextLength, 131072);
    EXPECT_EQ(m.deprecated, QDate(2026, 5, 12));
    EXPECT_EQ(m.rpmPerKey, 0);
    EXPECT_EQ(c.models[1].id, "Qwen/Qwen3.6-35B-A3B");
    EXPECT_EQ(c.models[1].capabilities, QStringList({"chat"}));

    ASSERT_EQ(c.virtualModels.size(), 1u);
    EXPECT_EQ(c.virtualModels[0].id, "team/coder");
    EXPECT_EQ(c.virtualModels[0].primary, "deepseek/deepseek-v4-flash");
    EXPECT_EQ(c.virtualModels[0].fallbacks, QStringList({"Qwen/Qwen3.6-35B-A3B"}));

    ASSERT_EQ(c.keys.size(), 1u);
    const Key &k = c.keys[0];
    EXPECT_EQ(k.name, "ide");
    EXPECT_EQ(k.secretSha256, QByteArray(kAbcSha256));
    EXPECT_EQ(k.rpm, 0);
    EXPECT_EQ(k.maxConcurrent, 0);
    EXPECT_FALSE(k.spendLimit.has_value());
    EXPECT_TRUE(k.allowedModels.isEmpty());
    EXPECT_TRUE(k.enabled);
}

constexpr char kMinimalChannel[] = R"yaml(channels:
  - id: local
    provider: ollama
    base_url: http://127.0.0.1:11434/v1/
    models:
      - id: llama3
)yaml";

} // namespace

TEST(ConfigLoaderTest, SpecExampleLoadsWithEveryValue)
{
    expectSpecExample(loadOk(kSpecExample));
}

TEST(ConfigLoaderTest, JsonEquivalentLoadsTheSameValues)
{
    expectSpecExample(loadOk(kSpecExampleJson));
}

TEST(ConfigLoaderTest, DefaultsApplyWhenOptionalFieldsAreMissing)
{
    const Config c = loadOk(kMinimalChannel);
    EXPECT_EQ(c.listenHost, "127.0.0.1");
    EXPECT_EQ(c.listenPort, 8080);
    EXPECT_TRUE(c.adminToken.isEmpty());
    EXPECT_TRUE(c.database.isEmpty());
    EXPECT_EQ(c.currency, "USD");
    EXPECT_FALSE(c.balance.has_value());  // absent: not metered
    EXPECT_FALSE(c.defaultModel.has_value());
    const Settings defaults;
    EXPECT_EQ(c.settings.firstChunkTimeoutS, defaults.firstChunkTimeoutS);
    EXPECT_EQ(c.settings.maxBodyBytes, 16 * 1024 * 1024);

    ASSERT_EQ(c.channels.size(), 1u);
    const Channel &ch = c.channels[0];
    EXPECT_EQ(ch.baseUrl, "http://127.0.0.1:11434/v1");   // trailing slash stripped
    EXPECT_EQ(ch.format, "openai");
    EXPECT_TRUE(ch.credentials.isEmpty());
    EXPECT_TRUE(ch.enabled);
    EXPECT_EQ(ch.maxConcurrent, 0);
    EXPECT_EQ(ch.timeouts.connect, 10s);
    EXPECT_EQ(ch.timeouts.firstByte, 30s);
    EXPECT_EQ(ch.timeouts.idle, 60s);
    EXPECT_EQ(ch.tier, "standard");
    EXPECT_TRUE(ch.quantization.isEmpty());
    EXPECT_EQ(ch.dataCollection, "allow");
    EXPECT_FALSE(ch.zdr);
    EXPECT_FALSE(ch.distillable);
    ASSERT_EQ(ch.models.size(), 1u);
    EXPECT_EQ(ch.models[0].upstream, "llama3");        // upstream defaults to the id
    EXPECT_DOUBLE_EQ(ch.models[0].price.prompt, 0);
    EXPECT_DOUBLE_EQ(ch.models[0].price.completion, 0);
}

TEST(ConfigLoaderTest, ModelServedByAChannelIsDeclaredImplicitlyAfterDeclaredOnes)
{
    const Config c = loadOk(QByteArray(kMinimalChannel) + R"yaml(models:
  - id: declared/only
    enabled: false
)yaml");
    ASSERT_EQ(c.models.size(), 2u);
    EXPECT_EQ(c.models[0].id, "declared/only");
    EXPECT_FALSE(c.models[0].enabled);
    const Model &implicit = c.models[1];
    EXPECT_EQ(implicit.id, "llama3");
    EXPECT_TRUE(implicit.enabled);
    EXPECT_FALSE(implicit.free);
    EXPECT_EQ(implicit.capabilities, QStringList({"chat"}));
    EXPECT_EQ(implicit.contextLength, 0);
    EXPECT_FALSE(implicit.deprecated.has_value());
}

TEST(ConfigLoaderTest, NonDefaultValuesAreRead)
{
    const Config c = loadOk(QByteArray(kMinimalChannel).replace("models:", R"yaml(format: anthropic
    enabled: false
    tier: flex
    timeouts: {connect_s: 0.5, idle_s: 120}
    models:)yaml") + R"yaml(listen: "[::1]:0"
balance: -3.5
default_model: team/x
settings: {first_chunk_timeout_s: 5, key_limit_wait_s: 0, capacity_wait_s: 1, retry_pause_ms: 50,
           max_attempts: 3, max_body_bytes: 1048576, log_retention_days: 0, log_retention_count: 250,
           log_message_content: true}
models:
  - {id: embed, capabilities: [embeddings], free: true, rpm_per_key: 7}
virtual_models:
  - {id: team/x, primary: llama3, fallbacks: [embed, llama3]}
keys:
  - name: ci
    secret_sha256: BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD
    rpm: 60
    max_concurrent: 2
    spend_limit: 12.5
    allowed_models: [team/x, llama3]
    enabled: false
)yaml");
    EXPECT_EQ(c.listenHost, "::1");
    EXPECT_EQ(c.listenPort, 0);
    ASSERT_TRUE(c.balance.has_value());
    EXPECT_DOUBLE_EQ(*c.balance, -3.5);
    EXPECT_EQ(c.defaultModel, QString("team/x"));
    EXPECT_EQ(c.settings.firstChunkTimeoutS, 5);
    EXPECT_EQ(c.settings.keyLimitWaitS, 0);
    EXPECT_EQ(c.settings.capacityWaitS, 1);
    EXPECT_EQ(c.settings.retryPauseMs, 50);
    EXPECT_EQ(c.settings.maxAttempts, 3);
    EXPECT_EQ(c.settings.maxBodyBytes, 1048576);
    EXPECT_EQ(c.settings.logRetentionDays, 0);
    EXPECT_EQ(c.settings.logRetentionCount, 250);
    EXPECT_TRUE(c.settings.logMessageContent);
    ASSERT_EQ(c.channels.size(), 1u);
    EXPECT_EQ(c.channels[0].format, "anthropic");
    EXPECT_FALSE(c.channels[0].enabled);
    EXPECT_EQ(c.channels[0].tier, "flex");
    EXPECT_EQ(c.channels[0].timeouts.connect, 500ms);
    EXPECT_EQ(c.channels[0].timeouts.firstByte, 30s);
    EXPECT_EQ(c.channels[0].timeouts.idle, 120s);
    ASSERT_EQ(c.models.size(), 2u);
    EXPECT_EQ(c.models[0].capabilities, QStringList({"embeddings"}));
    EXPECT_TRUE(c.models[0].free);
    EXPECT_EQ(c.models[0].rpmPerKey, 7);
    ASSERT_EQ(c.keys.size(), 1u);
    EXPECT_EQ(c.keys[0].secretSha256, QByteArray(kAbcSha256));
    EXPECT_EQ(c.keys[0].rpm, 60);
    EXPECT_EQ(c.keys[0].maxConcurrent, 2);
    EXPECT_EQ(c.keys[0].spendLimit, 12.5);
    EXPECT_EQ(c.keys[0].allowedModels, QStringList({"team/x", "llama3"}));
    EXPECT_FALSE(c.keys[0].enabled);
}

TEST(ConfigLoaderTest, EnvironmentReferencesExpandAnywhereInAString)
{
    QProcessEnvironment env;
    env.insert("HOST", "db.internal");
    env.insert("USER_NAME", "router");
    env.insert("EMPTY", "");
    const Config c = loadOk(R"yaml(database: postgres://${USER_NAME}@${HOST}:5432/sy${EMPTY}
currency: "$USD ${EMPTY}"
admin_token: 'a$b{c}${USER_NAME}'
)yaml", env);
    EXPECT_EQ(c.database, "postgres://router@db.internal:5432/sy");
    EXPECT_EQ(c.currency, "$USD");   // trimmed
    EXPECT_EQ(c.adminToken, "a$b{c}router");
}

TEST(ConfigLoaderTest, ExpandedValuesAreNotExpandedAgain)
{
    QProcessEnvironment env;
    env.insert("OUTER", "${INNER}");
    const Config c = loadOk("admin_token: ${OUTER}\n", env);
    EXPECT_EQ(c.adminToken, "${INNER}");
}

TEST(ConfigLoaderTest, ListenAcceptsHostPortForms)
{
    struct Row { const char *text; const char *host; quint16 port; };
    const Row rows[] = {
        {"127.0.0.1:8080", "127.0.0.1", 8080},
        {"localhost:0", "localhost", 0},
        {"0.0.0.0:65535", "0.0.0.0", 65535},
        {"'[::1]:8080'", "::1", 8080},
        {"'[fe80::1:2]:1'", "fe80::1:2", 1},
    };
    for (const Row &row : rows) {
        SCOPED_TRACE(row.text);
        const Config c = loadOk(QByteArray("listen: ") + row.text + "\n");
        EXPECT_EQ(c.listenHost, row.host);
        EXPECT_EQ(c.listenPort, row.port);
    }
}

TEST(ConfigLoaderTest, SecretIsStoredOnlyAsItsHash)
{
    QProcessEnvironment env;
    env.insert("K", "abc");
    const Config c = loadOk("keys:\n  - {name: a, secret: abc}\n  - {name: b, secret: x${K}}\n", env);
    ASSERT_EQ(c.keys.size(), 2u);
    EXPECT_EQ(c.keys[0].secretSha256, QByteArray(kAbcSha256));
    EXPECT_EQ(c.keys[1].secretSha256.size(), 64);
    EXPECT_NE(c.keys[1].secretSha256, c.keys[0].secretSha256);
}

TEST(ConfigLoaderTest, LoadsFromAFileAndNamesItInErrors)
{
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString good = dir.filePath("good.yaml");
    const QString bad = dir.filePath("bad.yaml");
    {
        QFile f(good);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(kSpecExample);
        QFile g(bad);
        ASSERT_TRUE(g.open(QIODevice::WriteOnly));
        g.write("currency: USD\nbalance: lots\n");
    }
    const LoadResult ok = loadConfigFile(good, specEnv());
    ASSERT_TRUE(ok.config.has_value());
    EXPECT_TRUE(ok.errors.empty());
    expectSpecExample(*ok.config);

    const LoadResult failed = loadConfigFile(bad, specEnv());
    EXPECT_FALSE(failed.config.has_value());
    ASSERT_EQ(failed.errors.size(), 1u);
    EXPECT_EQ(failed.errors[0].toString(), bad + ":2:10: balance: expected a number");

    const LoadResult missing = loadConfigFile(dir.filePath("absent.yaml"), specEnv());
    EXPECT_FALSE(missing.config.has_value());
    ASSERT_EQ(missing.errors.size(), 1u);
    EXPECT_EQ(missing.errors[0].line, 0);
    EXPECT_TRUE(missing.errors[0].toString().startsWith(dir.filePath("absent.yaml") + ": cannot read"));
}

TEST(ConfigLoaderTest, ErrorToStringLeavesOutWhatIsUnknown)
{
    EXPECT_EQ((ConfigError{"config.yaml", 12, 5, "channels[0].timeouts.connect_s", "expected a number"})
                  .toString(),
              "config.yaml:12:5: channels[0].timeouts.connect_s: expected a number");
    EXPECT_EQ((ConfigError{"c.yaml", 3, 0, "", "bad"}).toString(), "c.yaml:3: bad");
    EXPECT_EQ((ConfigError{"c.yaml", 0, 0, "", "cannot read"}).toString(), "c.yaml: cannot read");
}

namespace {

TEST(ConfigLoaderTest, ChannelTransportSettingsAreRead)
{
    const Config config = loadOk(R"yaml(channels:
  - id: azure
    provider: azure-openai
    base_url: https://res.openai.azure.com/openai/v1
    auth: api-key
    tls: {ca_file: /etc/company-ca.pem, insecure: true}
    proxy: http://proxy.example:3128
    probe_interval_s: 300
  - id: plain
    provider: p
    base_url: http://127.0.0.1:11434/v1
)yaml");
    ASSERT_EQ(config.channels.size(), 2u);
    const Channel &azure = config.channels[0];
    EXPECT_EQ(azure.auth.toStdString(), "api-key");
    EXPECT_EQ(azure.tls.caFile.toStdString(), "/etc/company-ca.pem");
    EXPECT_TRUE(azure.tls.insecure);
    EXPECT_EQ(azure.proxy.toStdString(), "http://proxy.example:3128");
    EXPECT_EQ(azure.probeIntervalS, 300);
    const Channel &plain = config.channels[1];
    EXPECT_TRUE(plain.auth.isEmpty());
    EXPECT_TRUE(plain.tls.caFile.isEmpty());
    EXPECT_FALSE(plain.tls.insecure);
    EXPECT_TRUE(plain.proxy.isEmpty());
    EXPECT_EQ(plain.probeIntervalS, 0);
}

} // namespace
