// Client setup texts: every client named, each text with the gateway URL, the key (or the
// placeholder) and the model, and the settings each tool really reads.
#include "onboarding/ConnectGuide.h"

#include <QStringList>
#include <gtest/gtest.h>

namespace sy::onboarding {
namespace {

ConnectText textFor(const char *client, const QString &secret = QStringLiteral("sk-test-connect"))
{
    const std::optional<ConnectText> text = connectText(QString::fromLatin1(client),
                                                        {QStringLiteral("http://127.0.0.1:9191/"), secret, QStringLiteral("acme/coder")});
    EXPECT_TRUE(text.has_value()) << client;
    return text.value_or(ConnectText{});
}

TEST(ConnectGuideTest, EveryClientGetsATextWithUrlKeyAndModel)
{
    const QStringList expected{"claude-code", "codex", "gemini-cli", "cursor", "continue", "aider",
                               "openai-sdk", "anthropic-sdk", "gemini-sdk", "curl"};
    QStringList ids;
    for (const ConnectClient &client : connectClients())
        ids << client.id;
    EXPECT_EQ(ids, expected);
    for (const QString &id : expected) {
        const ConnectText text = textFor(id.toLatin1().constData());
        EXPECT_TRUE(text.supported) << id.toStdString();
        EXPECT_TRUE(text.text.contains(QLatin1String("http://127.0.0.1:9191"))) << id.toStdString();
        EXPECT_FALSE(text.text.contains(QLatin1String("9191//"))) << id.toStdString();
        EXPECT_TRUE(text.text.contains(QLatin1String("sk-test-connect"))) << id.toStdString();
        EXPECT_TRUE(text.text.contains(QLatin1String("acme/coder"))) << id.toStdString();
    }
}

TEST(ConnectGuideTest, WithoutAModelNoExportOfAPlaceholderIsPrinted)
{
    for (const char *client : {"claude-code", "gemini-cli"}) {
        const std::optional<ConnectText> text = connectText(QString::fromLatin1(client),
                                                            {QStringLiteral("http://127.0.0.1:9191"), QStringLiteral("sk-test-connect"), {}});
        ASSERT_TRUE(text.has_value()) << client;
        EXPECT_FALSE(text->text.contains(QLatin1String("<model id>"))) << text->text.toStdString();
        EXPECT_FALSE(text->text.contains(QLatin1String("_MODEL="))) << text->text.toStdString();
        EXPECT_TRUE(text->text.contains(QLatin1String("its own default model"))) << client;
        EXPECT_TRUE(text->text.contains(QLatin1String("sk-test-connect"))) << client;
    }
}

TEST(ConnectGuideTest, WithoutASecretThePlaceholderIsPrinted)
{
    EXPECT_TRUE(textFor("curl", {}).text.contains(QLatin1String("<your Switchyard key>")));
}

TEST(ConnectGuideTest, ToolsGetTheSettingsTheyRead)
{
    const QString claude = textFor("claude-code").text;
    EXPECT_TRUE(claude.contains(QLatin1String("ANTHROPIC_BASE_URL=\"http://127.0.0.1:9191\"")));
    EXPECT_TRUE(claude.contains(QLatin1String("ANTHROPIC_AUTH_TOKEN")));
    const QString codex = textFor("codex").text;
    EXPECT_TRUE(codex.contains(QLatin1String("wire_api = \"responses\"")));
    EXPECT_TRUE(codex.contains(QLatin1String("base_url = \"http://127.0.0.1:9191/v1\"")));
    EXPECT_TRUE(codex.contains(QLatin1String("env_key")));
    const QString gemini = textFor("gemini-cli").text;
    EXPECT_TRUE(gemini.contains(QLatin1String("GOOGLE_GEMINI_BASE_URL=\"http://127.0.0.1:9191\"")));
    EXPECT_TRUE(gemini.contains(QLatin1String("GEMINI_API_KEY")));
    EXPECT_TRUE(textFor("aider").text.contains(QLatin1String("OPENAI_API_BASE=\"http://127.0.0.1:9191/v1\"")));
    EXPECT_TRUE(textFor("cursor").text.contains(QLatin1String("Override OpenAI Base URL")));
    EXPECT_TRUE(textFor("continue").text.contains(QLatin1String("apiBase: http://127.0.0.1:9191/v1")));
}

TEST(ConnectGuideTest, AnUnknownClientHasNoText)
{
    EXPECT_FALSE(connectText(QStringLiteral("notepad"), {}).has_value());
}

} // namespace
} // namespace sy::onboarding
