// `switchyard-gateway connect`: the client list, one client's setup with the configuration's
// listen address, and the errors of a wrong command line.
#include "cli/ConnectCommand.h"

#include <QFile>
#include <QTemporaryDir>
#include <gtest/gtest.h>

namespace sy::cli {
namespace {

std::optional<CommandResult> run(QStringList args)
{
    args.prepend(QStringLiteral("switchyard-gateway"));
    return runConnectCommand(args);
}

TEST(ConnectCommandTest, OtherCommandLinesAreNotTaken)
{
    EXPECT_FALSE(run({"--config", "x.yaml"}).has_value());
}

TEST(ConnectCommandTest, AloneItListsTheClients)
{
    const std::optional<CommandResult> result = run({"connect"});
    ASSERT_TRUE(result);
    EXPECT_EQ(result->exitCode, 0);
    for (const char *id : {"claude-code", "codex", "gemini-cli", "cursor", "continue", "aider", "curl"})
        EXPECT_TRUE(result->out.contains(QLatin1String(id))) << id;
}

TEST(ConnectCommandTest, AClientsSetupUsesTheKeyModelAndListenAddress)
{
    QTemporaryDir dir;
    QFile file(dir.filePath("gateway.yaml"));
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("listen: 127.0.0.1:9393\n");
    file.close();
    const std::optional<CommandResult> result =
        run({"connect", "codex", "--key", "sk-test-cli", "--model", "acme/coder", "--config", file.fileName()});
    ASSERT_TRUE(result);
    EXPECT_EQ(result->exitCode, 0) << result->err.toStdString();
    EXPECT_TRUE(result->out.contains(QLatin1String("base_url = \"http://127.0.0.1:9393/v1\""))) << result->out.toStdString();
    EXPECT_TRUE(result->out.contains(QLatin1String("sk-test-cli")));
    EXPECT_TRUE(result->out.contains(QLatin1String("acme/coder")));
}

TEST(ConnectCommandTest, WithoutAConfigurationTheDefaultAddressAndPlaceholderAreUsed)
{
    const std::optional<CommandResult> result = run({"connect", "curl"});
    ASSERT_TRUE(result);
    EXPECT_TRUE(result->out.contains(QLatin1String("http://127.0.0.1:8080/v1/chat/completions")));
    EXPECT_TRUE(result->out.contains(QLatin1String("<your Switchyard key>")));
}

TEST(ConnectCommandTest, AnUnknownClientOrOptionIsAnError)
{
    EXPECT_EQ(run({"connect", "notepad"})->exitCode, 2);
    EXPECT_EQ(run({"connect", "curl", "--colour"})->exitCode, 2);
    EXPECT_EQ(run({"connect", "curl", "--key"})->exitCode, 2);
}

} // namespace
} // namespace sy::cli
