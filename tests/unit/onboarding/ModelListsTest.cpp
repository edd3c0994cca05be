// Reading providers' model lists: OpenAI/Anthropic `data`, Gemini `models/x` names, Ollama tags,
// and the answers that are not lists (HTML, empty).
#include "onboarding/ModelLists.h"

#include <QJsonArray>
#include <gtest/gtest.h>

namespace sy::onboarding {
namespace {

QStringList upstreams(const ModelListResult &result)
{
    QStringList out;
    for (const DiscoveredModel &m : result.models)
        out << m.upstream;
    return out;
}

TEST(ModelListsTest, OpenAiListKeepsTheProvidersOrderWithoutDuplicates)
{
    const ModelListResult result = parseModelList(ModelListShape::OpenAi,
        R"({"object":"list","data":[{"id":"gpt-4.1"},{"id":"text-embedding-3-small"},{"id":"gpt-4.1"}]})");
    EXPECT_TRUE(result.error.isEmpty());
    EXPECT_EQ(upstreams(result), (QStringList{"gpt-4.1", "text-embedding-3-small"}));
    EXPECT_EQ(result.models[1].capabilities, QStringList{"embeddings"});
}

TEST(ModelListsTest, GeminiNamesLoseTheirModelsPrefix)
{
    const ModelListResult result = parseModelList(ModelListShape::Gemini,
        R"({"models":[{"name":"models/gemini-2.5-flash","supportedGenerationMethods":["generateContent"]},
                      {"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]}]})");
    EXPECT_EQ(upstreams(result), (QStringList{"gemini-2.5-flash", "text-embedding-004"}));
    EXPECT_EQ(result.models[1].capabilities, QStringList{"embeddings"});
}

TEST(ModelListsTest, OllamaTagsAreRead)
{
    const ModelListResult result = parseModelList(ModelListShape::OllamaTags,
                                                  R"({"models":[{"name":"llama3.2:latest","size":1}]})");
    EXPECT_EQ(upstreams(result), QStringList{"llama3.2:latest"});
}

TEST(ModelListsTest, AnHtmlPageIsNamedAsSuch)
{
    const ModelListResult result = parseModelList(ModelListShape::OpenAi, "<!DOCTYPE html><html><body>Login</body></html>");
    EXPECT_TRUE(result.models.empty());
    EXPECT_TRUE(result.error.contains(QLatin1String("HTML"))) << result.error.toStdString();
}

TEST(ModelListsTest, AnEmptyListIsAnError)
{
    const ModelListResult result = parseModelList(ModelListShape::OpenAi, R"({"data":[]})");
    EXPECT_TRUE(result.models.empty());
    EXPECT_TRUE(result.error.contains(QLatin1String("no models"))) << result.error.toStdString();
}

TEST(ModelListsTest, PresetPricesFillKnownModelsOnly)
{
    Preset preset;
    preset.models.push_back({"acme/big", "big-up", 2.0, 8.0, {"chat", "tools"}});
    ModelListResult result = parseModelList(ModelListShape::OpenAi, R"({"data":[{"id":"big-up"},{"id":"other"}]})");
    applyPresetPrices(&preset, result.models);
    const QJsonArray models = discoveredJson(result.models).value("models").toArray();
    ASSERT_EQ(models.size(), 2);
    const QJsonObject known = models[0].toObject();
    EXPECT_EQ(known.value("id").toString().toStdString(), "acme/big");
    EXPECT_EQ(known.value("upstream").toString().toStdString(), "big-up");
    EXPECT_DOUBLE_EQ(known.value("prompt").toDouble(), 2.0);
    EXPECT_DOUBLE_EQ(known.value("completion").toDouble(), 8.0);
    EXPECT_TRUE(known.value("known_price").toBool());
    const QJsonObject unknown = models[1].toObject();
    EXPECT_FALSE(unknown.value("known_price").toBool(true));
    EXPECT_DOUBLE_EQ(unknown.value("prompt").toDouble(-1), 0.0);
}

} // namespace
} // namespace sy::onboarding
