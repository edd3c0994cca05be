// switchyard-gateway's command line: exactly one of --config / --demo, --listen checked, --check,
// --help and --version, and the HOST:PORT splitter.
#include "cli/GatewayOptions.h"

#include <gtest/gtest.h>

namespace sy::cli {
namespace {

ParsedOptions parse(QStringList arguments)
{
    arguments.prepend(QStringLiteral("switchyard-gateway"));
    return parseGatewayOptions(arguments);
}

GatewayOptions accepted(const QStringList &arguments)
{
    const ParsedOptions parsed = parse(arguments);
    EXPECT_TRUE(parsed.error.isEmpty()) << parsed.error.toStdString();
    EXPECT_TRUE(parsed.output.isEmpty()) << parsed.output.toStdString();
    if (!parsed.options) {
        ADD_FAILURE() << "no options for: " << arguments.join(' ').toStdString();
        return {};
    }
    return *parsed.options;
}

QString rejected(const QStringList &arguments)
{
    const ParsedOptions parsed = parse(arguments);
    EXPECT_FALSE(parsed.options) << "accepted: " << arguments.join(' ').toStdString();
    EXPECT_FALSE(parsed.error.isEmpty()) << arguments.join(' ').toStdString();
    EXPECT_TRUE(parsed.output.isEmpty());
    return parsed.error;
}

TEST(GatewayOptionsTest, ConfigFileIsTakenInLongAndShortForm)
{
    for (const QStringList &arguments : {QStringList{"--config", "gateway.yaml"}, QStringList{"-c", "gateway.yaml"},
                                         QStringList{"--config=gateway.yaml"}}) {
        SCOPED_TRACE(arguments.join(' ').toStdString());
        const GatewayOptions options = accepted(arguments);
        EXPECT_EQ(options.configPath, u"gateway.yaml");
        EXPECT_FALSE(options.demo);
        EXPECT_FALSE(options.checkOnly);
        EXPECT_FALSE(options.listen);
    }
}

TEST(GatewayOptionsTest, DemoRunsWithoutAConfigFile)
{
    const GatewayOptions options = accepted({"--demo"});
    EXPECT_TRUE(options.demo);
    EXPECT_TRUE(options.configPath.isEmpty());
}

TEST(GatewayOptionsTest, ExactlyOneOfConfigAndDemoIsRequired)
{
    EXPECT_TRUE(rejected({}).contains(u"--config")) << "no source at all";
    EXPECT_TRUE(rejected({"--check"}).contains(u"--demo"));
    EXPECT_TRUE(rejected({"--demo", "--config", "gateway.yaml"}).contains(u"exactly one"));
}

TEST(GatewayOptionsTest, CheckOnlyIsSet)
{
    const GatewayOptions options = accepted({"--config", "gateway.yaml", "--check"});
    EXPECT_TRUE(options.checkOnly);
    EXPECT_EQ(options.configPath, u"gateway.yaml");
}

TEST(GatewayOptionsTest, ListenOverrideIsKeptAsGiven)
{
    EXPECT_EQ(accepted({"--demo", "--listen", "127.0.0.1:9090"}).listen, QString("127.0.0.1:9090"));
    EXPECT_EQ(accepted({"--demo", "--listen", "[::1]:8081"}).listen, QString("[::1]:8081"));
}

TEST(GatewayOptionsTest, MalformedListenIsRejectedNamingTheValue)
{
    for (const char *value : {"8080", "localhost:", "localhost:http", ":8080", "localhost:70000"}) {
        SCOPED_TRACE(value);
        const QString error = rejected({"--demo", "--listen", QString::fromLatin1(value)});
        EXPECT_TRUE(error.contains(QString::fromLatin1(value))) << error.toStdString();
    }
}

TEST(GatewayOptionsTest, UnknownOptionMissingValueAndStrayArgumentsAreRejected)
{
    EXPECT_TRUE(rejected({"--demo", "--verbose"}).contains(u"verbose"));
    EXPECT_FALSE(rejected({"--config"}).isEmpty());
    EXPECT_TRUE(rejected({"--demo", "extra.yaml"}).contains(u"extra.yaml"));
}

TEST(GatewayOptionsTest, HelpIsPrintedInsteadOfRunning)
{
    const ParsedOptions parsed = parse({"--help"});
    EXPECT_FALSE(parsed.options);
    EXPECT_TRUE(parsed.error.isEmpty());
    for (const char *option : {"--config", "--demo", "--listen", "--check", "--version"})
        EXPECT_TRUE(parsed.output.contains(QString::fromLatin1(option))) << option;
    EXPECT_TRUE(parse({"-h"}).output.contains(u"--config"));
}

TEST(GatewayOptionsTest, VersionPrintsTheProgramVersion)
{
    const ParsedOptions parsed = parse({"--version"});
    EXPECT_FALSE(parsed.options);
    EXPECT_TRUE(parsed.error.isEmpty());
    EXPECT_EQ(parsed.output, QStringLiteral("switchyard-gateway " SWITCHYARD_VERSION "\n"));
}

TEST(GatewayOptionsTest, HostAndPortAreSplit)
{
    struct Row {
        const char *text;
        const char *host;
        quint16 port;
    };
    const Row rows[] = {
        {"127.0.0.1:8080", "127.0.0.1", 8080},
        {"localhost:1", "localhost", 1},
        {"0.0.0.0:65535", "0.0.0.0", 65535},
        {"[::1]:8080", "::1", 8080},
        {"[fe80::1]:443", "fe80::1", 443},
    };
    for (const Row &row : rows) {
        SCOPED_TRACE(row.text);
        QString host;
        quint16 port = 0;
        ASSERT_TRUE(splitHostPort(QString::fromLatin1(row.text), host, port));
        EXPECT_EQ(host, QString::fromLatin1(row.host));
        EXPECT_EQ(port, row.port);
    }
}

TEST(GatewayOptionsTest, MalformedHostAndPortAreRefused)
{
    for (const char *text : {"", "8080", ":8080", "localhost", "localhost:", "localhost:65536", "localhost:-1",
                             "localhost:80x", "[]:8080", "[::1]", "host:99999999999"}) {
        SCOPED_TRACE(text);
        QString host;
        quint16 port = 0;
        EXPECT_FALSE(splitHostPort(QString::fromLatin1(text), host, port));
    }
}

} // namespace
} // namespace sy::cli
