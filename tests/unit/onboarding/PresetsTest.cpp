// The built-in provider presets: every provider the dashboard offers, local servers on their
// default ports without a key, dated prices, and the admin API's JSON shape.
#include "onboarding/Presets.h"

#include <QJsonArray>
#include <gtest/gtest.h>

namespace sy::onboarding {
namespace {

TEST(PresetsTest, EveryPromisedProviderIsBuiltIn)
{
    for (const char *id : {"openai", "anthropic", "gemini", "openrouter", "deepseek", "mistral", "groq",
                           "together", "fireworks", "xai", "azure-openai", "ollama", "lmstudio",
                           "llamacpp", "vllm"}) {
        const Preset *preset = findPreset(QString::fromLatin1(id));
        ASSERT_NE(preset, nullptr) << id;
        EXPECT_FALSE(preset->name.isEmpty()) << id;
        EXPECT_TRUE(preset->baseUrl.startsWith(QLatin1String("http"))) << id;
        EXPECT_FALSE(preset->pricesAsOf.isEmpty()) << id;
        EXPECT_TRUE(QDate::fromString(preset->pricesAsOf, Qt::ISODate).isValid()) << id;
    }
}

TEST(PresetsTest, LocalServersUseTheirDefaultPortsAndNeedNoKey)
{
    const std::pair<const char *, const char *> expected[] = {{"ollama", "http://127.0.0.1:11434/v1"},
                                                              {"lmstudio", "http://127.0.0.1:1234/v1"},
                                                              {"llamacpp", "http://127.0.0.1:8080/v1"},
                                                              {"vllm", "http://127.0.0.1:8000/v1"}};
    for (const auto &[id, url] : expected) {
        const Preset *preset = findPreset(QString::fromLatin1(id));
        ASSERT_NE(preset, nullptr) << id;
        EXPECT_EQ(preset->baseUrl.toStdString(), url);
        EXPECT_TRUE(preset->local) << id;
        EXPECT_FALSE(preset->needsKey) << id;
        EXPECT_EQ(preset->auth.toStdString(), "none") << id;
    }
}

TEST(PresetsTest, KeysAreSentTheProvidersWay)
{
    EXPECT_EQ(findPreset("openai")->auth.toStdString(), "bearer");
    EXPECT_EQ(findPreset("anthropic")->auth.toStdString(), "x-api-key");
    EXPECT_EQ(findPreset("anthropic")->format.toStdString(), "anthropic");
    EXPECT_EQ(findPreset("azure-openai")->auth.toStdString(), "api-key");
    EXPECT_TRUE(findPreset("openai")->needsKey);
}

TEST(PresetsTest, JsonCarriesTheContractFields)
{
    const QJsonArray presets = presetsJson(builtinPresets()).value("presets").toArray();
    ASSERT_GE(presets.size(), 15);
    QJsonObject openai;
    for (const QJsonValue &p : presets)
        if (p.toObject().value("id") == QLatin1String("openai"))
            openai = p.toObject();
    EXPECT_EQ(openai.value("name").toString().toStdString(), "OpenAI");
    EXPECT_EQ(openai.value("base_url").toString().toStdString(), "https://api.openai.com/v1");
    EXPECT_EQ(openai.value("format").toString().toStdString(), "openai");
    EXPECT_EQ(openai.value("auth").toString().toStdString(), "bearer");
    EXPECT_EQ(openai.value("models_path").toString().toStdString(), "/models");
    EXPECT_FALSE(openai.value("local").toBool(true));
    EXPECT_TRUE(openai.value("needs_key").toBool());
    EXPECT_FALSE(openai.value("prices_as_of").toString().isEmpty());
    QJsonObject gpt41;
    for (const QJsonValue &m : openai.value("models").toArray())
        if (m.toObject().value("id") == QLatin1String("gpt-4.1"))
            gpt41 = m.toObject();
    EXPECT_EQ(gpt41.value("upstream").toString().toStdString(), "gpt-4.1");
    EXPECT_DOUBLE_EQ(gpt41.value("prompt").toDouble(), 2.0);
    EXPECT_DOUBLE_EQ(gpt41.value("completion").toDouble(), 8.0);
    EXPECT_TRUE(gpt41.value("capabilities").toArray().contains(QStringLiteral("tools")));
}

TEST(PresetsTest, ADocumentWithABadBaseUrlIsRefusedWhole)
{
    const PresetList list = parsePresets("presets:\n  - {id: a, base_url: 'https://a.example/v1'}\n"
                                         "  - {id: b, base_url: 'ftp://b.example'}\n");
    EXPECT_TRUE(list.presets.empty());
    EXPECT_TRUE(list.error.contains(QLatin1String("preset b"))) << list.error.toStdString();
}

TEST(PresetsTest, APresetModelWithoutUpstreamUsesItsId)
{
    const PresetList list = parsePresets("prices_as_of: '2026-01-02'\npresets:\n"
                                         "  - {id: a, base_url: 'https://a.example/v1/', models: [{id: m, prompt: 1.5}]}\n");
    ASSERT_EQ(list.presets.size(), 1u) << list.error.toStdString();
    EXPECT_EQ(list.presets[0].baseUrl.toStdString(), "https://a.example/v1");
    EXPECT_EQ(list.presets[0].pricesAsOf.toStdString(), "2026-01-02");
    ASSERT_EQ(list.presets[0].models.size(), 1u);
    EXPECT_EQ(list.presets[0].models[0].upstream.toStdString(), "m");
    EXPECT_DOUBLE_EQ(list.presets[0].models[0].prompt, 1.5);
}

} // namespace
} // namespace sy::onboarding
