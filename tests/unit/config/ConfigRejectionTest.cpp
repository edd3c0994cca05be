// Rejected configuration files: each case must fail with an error at the right line naming the
// right field, nothing may be half-loaded, and no secret may appear in any error text.
#include "config/ConfigLoader.h"

#include <gtest/gtest.h>

using namespace sy::config;

namespace {

QProcessEnvironment testEnv()
{
    QProcessEnvironment env;
    env.insert("SET", "value");
    env.insert("EMPTY", "");
    return env;
}

// A valid channel the cases build on (lines 1-6).
constexpr char kChannel[] = R"yaml(channels:
  - id: c1
    provider: p
    base_url: https://up.example/v1
    models:
      - id: m1
)yaml";

struct Rejection {
    const char *name;
    QByteArray text;
    int line;              // expected line of the error
    int column;            // 0 = not checked
    const char *field;
    const char *message;   // substring of the error message
};

// Test names are enough to identify a row in failure output.
void PrintTo(const Rejection &r, std::ostream *os)
{
    *os << r.name;
}

QByteArray withChannel(const char *more)
{
    return QByteArray(kChannel) + more;
}

std::vector<Rejection> rejections()
{
    return {
        {"UnknownTopLevelKey", "listen: 127.0.0.1:8080\ncolour: blue\n", 2, 1, "colour", "unknown key"},
        {"UnknownNestedKey", withChannel("    timeouts: {connect_s: 5, conect_s: 3}\n"), 7, 30,
         "channels[0].timeouts.conect_s", "unknown key"},
        {"UnknownKeyInListEntry", withChannel("      - id: m2\n        pricing: 1\n"), 8, 9,
         "channels[0].models[1].pricing", "unknown key"},
        {"DuplicateKeyInMapping", "currency: USD\ncurrency: EUR\n", 2, 1, "currency", "duplicate key"},
        {"NumberExpected", withChannel("    timeouts: {connect_s: soon}\n"), 7, 27,
         "channels[0].timeouts.connect_s", "expected a number"},
        {"QuotedNumberIsText", "balance: \"25\"\n", 1, 10, "balance", "expected a number"},
        {"WholeNumberExpected", "keys:\n  - {name: a, secret: s, rpm: 1.5}\n", 2, 0, "keys[0].rpm",
         "expected a whole number"},
        {"ListExpected", withChannel("    credentials: abc\n"), 7, 18, "channels[0].credentials",
         "expected a list"},
        {"BooleanExpected", withChannel("    zdr: yes\n"), 7, 10, "channels[0].zdr",
         "expected true or false"},
        {"StringExpected", "database: [a, b]\n", 1, 11, "database", "expected a string"},
        {"MappingExpected", "settings: 5\n", 1, 11, "settings", "expected a mapping"},
        {"TopLevelNotAMapping", "- a\n- b\n", 1, 1, "", "expected a mapping"},
        {"BadFormat", withChannel("    format: openia\n"), 7, 13, "channels[0].format",
         "expected one of: openai, anthropic, gemini"},
        // A format the gateway has no upstream dialect for is refused, not accepted and then sent
        // the wrong body.
        {"FormatWithoutADialect", withChannel("    format: bedrock\n"), 7, 13, "channels[0].format",
         "expected one of: openai, anthropic, gemini"},
        {"BadTier", withChannel("    tier: fast\n"), 7, 0, "channels[0].tier",
         "expected one of: standard, priority, flex"},
        {"BadDataCollection", withChannel("    data_collection: maybe\n"), 7, 0,
         "channels[0].data_collection", "expected one of: allow, deny"},
        {"BadCapability", "models:\n  - id: m\n    capabilities: [chat, audio]\n", 3, 26,
         "models[0].capabilities[1]", "expected one of: chat, tools, vision, json, embeddings"},
        {"EmptyCapabilities", "models:\n  - id: m\n    capabilities: []\n", 3, 0,
         "models[0].capabilities", "at least one"},
        {"BadDateValue", "models:\n  - id: m\n    deprecated: 2026-13-01\n", 3, 17,
         "models[0].deprecated", "YYYY-MM-DD"},
        {"BadDateShape", "models:\n  - id: m\n    deprecated: 12/05/2026\n", 3, 17,
         "models[0].deprecated", "YYYY-MM-DD"},
        {"ListenWithoutPort", "listen: 127.0.0.1\n", 1, 9, "listen", "host:port"},
        {"ListenBareIpv6", "listen: ::1:8080\n", 1, 9, "listen", "host:port"},
        {"ListenBracketedIpv4", "listen: '[127.0.0.1]:80'\n", 1, 9, "listen", "host:port"},
        {"ListenPortTooLarge", "listen: localhost:70000\n", 1, 9, "listen", "between 0 and 65535"},
        {"UnsetVariable", "admin_token: ${NOT_SET_ANYWHERE}\n", 1, 14, "admin_token",
         "environment variable NOT_SET_ANYWHERE is not set"},
        {"UnsetVariableInList", withChannel("    credentials: [${SET}, ${MISSING_KEY}]\n"), 7, 0,
         "channels[0].credentials[1]", "environment variable MISSING_KEY is not set"},
        {"MalformedReference", "database: ${1X}\n", 1, 11, "database", "variable name"},
        {"EmptyCredential", withChannel("    credentials: [${EMPTY}]\n"), 7, 0,
         "channels[0].credentials[0]", "must not be empty"},
        {"NegativePrice", withChannel("        price: {prompt: -1}\n"), 7, 0,
         "channels[0].models[0].price.prompt", "must be at least 0"},
        {"ZeroTimeout", withChannel("    timeouts: {idle_s: 0}\n"), 7, 0, "channels[0].timeouts.idle_s",
         "must be greater than 0"},
        {"ZeroFirstChunkTimeout", "settings: {first_chunk_timeout_s: 0}\n", 1, 0,
         "settings.first_chunk_timeout_s", "must be greater than 0"},
        {"NegativeRetentionDays", "settings:\n  log_retention_days: -1\n", 2, 23,
         "settings.log_retention_days", "must be between 0"},
        {"NegativeRetentionCount", "settings:\n  max_attempts: 1\n  log_retention_count: -5\n", 3, 24,
         "settings.log_retention_count", "must be between 0"},
        {"FractionalRetentionDays", "settings: {log_retention_days: 1.5}\n", 1, 0,
         "settings.log_retention_days", "expected a whole number"},
        {"TextRetentionCount", "settings: {log_retention_count: \"100\"}\n", 1, 0,
         "settings.log_retention_count", "expected a number"},
        {"ContentLoggingNotBoolean", "settings: {log_message_content: yes}\n", 1, 0,
         "settings.log_message_content", "expected true or false"},
        {"NegativeMaxConcurrent", withChannel("    max_concurrent: -1\n"), 7, 0,
         "channels[0].max_concurrent", "must be between 0"},
        {"NonHttpBaseUrl", "channels:\n  - id: c\n    provider: p\n    base_url: ftp://x/\n", 4, 15,
         "channels[0].base_url", "http:// or https://"},
        {"FileBaseUrl", "channels:\n  - id: c\n    provider: p\n    base_url: file:///etc/passwd\n", 4, 15,
         "channels[0].base_url", "http:// or https://"},
        {"ProxyWithoutScheme", withChannel("    proxy: proxy.example:3128\n"), 7, 0, "channels[0].proxy",
         "http://host:port"},
        {"UnknownAuth", withChannel("    auth: basic\n"), 7, 0, "channels[0].auth", "bearer, x-api-key, api-key, x-goog-api-key, none"},
        {"UnknownTlsKey", withChannel("    tls: {ca_file: ca.pem, verify: false}\n"), 7, 0, "channels[0].tls.verify",
         "unknown"},
        {"InsecureNotBoolean", withChannel("    tls: {insecure: maybe}\n"), 7, 0, "channels[0].tls.insecure",
         "expected true or false"},
        {"NegativeProbeInterval", withChannel("    probe_interval_s: -5\n"), 7, 0, "channels[0].probe_interval_s",
         "must be between 0"},
        {"MissingChannelId", "channels:\n  - provider: p\n    base_url: http://x\n", 2, 0,
         "channels[0].id", "missing required field"},
        {"ChannelIdWithSpace", "channels:\n  - id: my channel\n    provider: p\n    base_url: http://x\n",
         2, 0, "channels[0].id", "no spaces"},
        {"ReservedModelSuffix", "models:\n  - id: fast:nitro\n", 2, 0, "models[0].id", ":nitro"},
        {"DuplicateChannelId", withChannel("  - id: c1\n    provider: q\n    base_url: http://x\n"), 7,
         9, "channels[1].id", "duplicate channel id \"c1\" (first at line 2)"},
        {"DuplicateModelId", "models:\n  - id: m\n  - id: n\n  - id: m\n", 4, 9, "models[2].id",
         "duplicate model id \"m\""},
        {"DuplicateModelInChannel", withChannel("      - id: m1\n"), 7, 0, "channels[0].models[1].id",
         "duplicate"},
        {"DuplicateVirtualModelId",
         withChannel("virtual_models:\n  - {id: v, primary: m1}\n  - {id: v, primary: m1}\n"), 9, 0,
         "virtual_models[1].id", "duplicate virtual model id"},
        {"VirtualModelNamedLikeAModel", withChannel("virtual_models:\n  - {id: m1, primary: m1}\n"), 8,
         0, "virtual_models[0].id", "already a model id"},
        {"VirtualModelPrimaryIsItself", withChannel("virtual_models:\n  - {id: v, primary: v}\n"), 8,
         0, "virtual_models[0].primary", "refer to itself"},
        {"VirtualModelFallbackIsItself",
         withChannel("virtual_models:\n  - id: v\n    primary: m1\n    fallbacks: [m1, v]\n"), 10, 0,
         "virtual_models[0].fallbacks[1]", "refer to itself"},
        {"VirtualModelUnknownPrimary", withChannel("virtual_models:\n  - {id: v, primary: nope}\n"),
         8, 0, "virtual_models[0].primary", "unknown model \"nope\""},
        {"VirtualModelUnknownFallback",
         withChannel("virtual_models:\n  - id: v\n    primary: m1\n    fallbacks: [gone]\n"), 10, 0,
         "virtual_models[0].fallbacks[0]", "unknown model \"gone\""},
        {"VirtualModelTargetsVirtualModel",
         withChannel("virtual_models:\n  - {id: v, primary: m1}\n  - {id: w, primary: v}\n"), 9, 0,
         "virtual_models[1].primary", "is a virtual model"},
        {"UnknownDefaultModel", withChannel("default_model: nowhere\n"), 7, 16, "default_model",
         "unknown model or virtual model \"nowhere\""},
        {"BothSecretForms", "keys:\n  - name: a\n    secret: s\n    secret_sha256: " + QByteArray(64, 'a') + "\n",
         4, 0, "keys[0].secret_sha256", "either secret or secret_sha256"},
        {"NeitherSecretForm", "keys:\n  - name: a\n    rpm: 1\n", 2, 0, "keys[0].secret",
         "missing required field"},
        {"BadSecretHash", "keys:\n  - name: a\n    secret_sha256: abc123\n", 3, 20,
         "keys[0].secret_sha256", "64 hexadecimal digits"},
        {"DuplicateKeyName", "keys:\n  - {name: a, secret: s1}\n  - {name: a, secret: s2}\n", 3, 0,
         "keys[1].name", "duplicate key name"},
        {"DuplicateKeySecret", "keys:\n  - {name: a, secret: s1}\n  - {name: b, secret: s1}\n", 3, 0,
         "keys[1].secret", "same secret as key \"a\""},
        {"UnknownAllowedModel",
         withChannel("keys:\n  - name: a\n    secret: s\n    allowed_models: [m1, ghost]\n"), 10, 0,
         "keys[0].allowed_models[1]", "unknown model \"ghost\""},
        {"SyntaxError", "listen: 127.0.0.1:8080\nchannels: [\n  {id: a\n", 4, 0, "", "YAML syntax error"},
        {"SyntaxErrorBadIndent", "settings:\n  max_attempts: 1\n key_limit_wait_s: 2\n", 3, 0, "",
         "YAML syntax error"},
        {"EmptyDocument", "# nothing\n", 1, 1, "", "empty"},
        {"TwoDocuments", "currency: USD\n---\ncurrency: EUR\n", 3, 0, "", "single YAML document"},
        {"ColumnCountsCharacters", "models: [{id: \"\u00e9\u00e9\", x: 1}]\n", 1, 21, "models[0].x",
         "unknown key"},
        {"ControlCharacter", QByteArray("currency: US\x01D\n"), 1, 13, "", "control character"},
    };
}

class ConfigRejectionTest : public testing::TestWithParam<Rejection> {};

TEST_P(ConfigRejectionTest, FailsAtTheRightLineNamingTheField)
{
    const Rejection &r = GetParam();
    const LoadResult result = loadConfigText(r.text, "bad.yaml", testEnv());
    EXPECT_FALSE(result.config.has_value());
    ASSERT_FALSE(result.errors.empty());
    std::string all;
    bool found = false;
    for (const ConfigError &e : result.errors) {
        all += e.toString().toStdString() + "\n";
        EXPECT_EQ(e.file, "bad.yaml");
        if (e.line == r.line && (r.column == 0 || e.column == r.column)
            && e.field == QString::fromUtf8(r.field) && e.message.contains(QString::fromUtf8(r.message)))
            found = true;
    }
    EXPECT_TRUE(found) << "expected line " << r.line << " col " << r.column << " field '" << r.field
                       << "' message '" << r.message << "'; got:\n" << all;
}

INSTANTIATE_TEST_SUITE_P(Cases, ConfigRejectionTest, testing::ValuesIn(rejections()),
                         [](const testing::TestParamInfo<Rejection> &info) { return info.param.name; });

} // namespace

TEST(ConfigRejectionSummaryTest, ReportsEveryErrorInFileOrder)
{
    const LoadResult result = loadConfigText(R"yaml(listen: nowhere
balance: many
channels:
  - id: c1
    provider: p
    base_url: http://x
    tier: gold
    models: [{id: m1}]
virtual_models:
  - {id: v, primary: missing}
)yaml", "all.yaml", testEnv());
    EXPECT_FALSE(result.config.has_value());
    ASSERT_EQ(result.errors.size(), 4u);
    EXPECT_EQ(result.errors[0].field, "listen");
    EXPECT_EQ(result.errors[1].field, "balance");
    EXPECT_EQ(result.errors[2].field, "channels[0].tier");
    EXPECT_EQ(result.errors[3].field, "virtual_models[0].primary");
    EXPECT_EQ(result.errors[3].line, 10);
}

TEST(ConfigRejectionSummaryTest, SecretsNeverAppearInErrors)
{
    const QString secret = "sk-TOPSECRET-4242";
    QProcessEnvironment env;
    env.insert("SECRET", secret);
    env.insert("SECRET_URL", "https://user:" + secret + "@host/v1?x=1");
    const QByteArray cases[] = {
        "keys:\n  - {name: a, secret: sk-TOPSECRET-4242, secret_sha256: sk-TOPSECRET-4242}\n",
        "keys:\n  - {name: a, secret_sha256: sk-TOPSECRET-4242}\n",
        "keys:\n  - {name: a, secret: [sk-TOPSECRET-4242]}\n",
        "keys:\n  - {name: a, secret: sk-TOPSECRET-4242}\n  - {name: b, secret: '${SECRET}'}\n",
        "keys:\n  - {name: a, secret: sk-TOPSECRET-4242${UNSET_VAR}}\n",
        "keys:\n  - {name: a, secret: {v: sk-TOPSECRET-4242}}\n",
        "channels:\n  - {id: c, provider: p, base_url: 'http://x', credentials: {k: sk-TOPSECRET-4242}}\n",
        "channels:\n  - {id: c, provider: p, base_url: 'http://x', credentials: [[sk-TOPSECRET-4242]]}\n",
        "channels:\n  - {id: c, provider: p, base_url: '${SECRET_URL}'}\n",
        "admin_token: [sk-TOPSECRET-4242]\n",
        "admin_token: sk-TOPSECRET-4242${UNSET_VAR}\n",
        "admin_token: sk-TOPSECRET-4242: x\n",
        "admin_token: [sk-TOPSECRET-4242\n",
    };
    for (const QByteArray &text : cases) {
        SCOPED_TRACE(text.toStdString());
        const LoadResult result = loadConfigText(text, "s.yaml", env);
        EXPECT_FALSE(result.config.has_value());
        EXPECT_FALSE(result.errors.empty());
        for (const ConfigError &e : result.errors)
            EXPECT_FALSE(e.toString().contains("TOPSECRET")) << e.toString().toStdString();
    }
}
