// The /_sim control endpoint: rule changes at runtime, stats, reset.
#include "SimServerFixture.h"

#include <QJsonArray>

namespace sy::sim::test {
namespace {

using SimControlTest = SimServerFixture;

TEST_F(SimControlTest, PostedRuleTakesEffectAndReplacesTheSameTarget)
{
    EXPECT_EQ(chat("/v1/chat/completions", "m"), 200);
    EXPECT_EQ(call("POST", "/_sim/rules", R"({"model":"m","failure":"status:503"})")->status(), 200);
    EXPECT_EQ(chat("/v1/chat/completions", "m"), 503);
    EXPECT_EQ(chat("/v1/chat/completions", "other"), 200);
    EXPECT_EQ(call("POST", "/_sim/rules", R"({"model":"m","failure":"status:429"})")->status(), 200);
    EXPECT_EQ(chat("/v1/chat/completions", "m"), 429);
    const QJsonArray rules = json(call("GET", "/_sim/rules")->body())["rules"].toArray();
    ASSERT_EQ(rules.size(), 1);
    EXPECT_EQ(rules[0]["failure"].toString(), u"status:429");
}

TEST_F(SimControlTest, DeleteRulesRestoresNormalAnswers)
{
    putRules(R"({"rules":[{"failure":"status:500"}]})");
    EXPECT_EQ(chat("/v1/chat/completions", "m"), 500);
    EXPECT_EQ(call("DELETE", "/_sim/rules")->status(), 200);
    EXPECT_EQ(chat("/v1/chat/completions", "m"), 200);
}

TEST_F(SimControlTest, PutRulesReplacesEveryRule)
{
    putRules(R"({"rules":[{"model":"a","failure":"status:500"},{"model":"b","failure":"status:500"}]})");
    putRules(R"({"rules":[{"model":"b","failure":"status:401"}]})");
    EXPECT_EQ(chat("/v1/chat/completions", "a"), 200);
    EXPECT_EQ(chat("/v1/chat/completions", "b"), 401);
}

TEST_F(SimControlTest, InvalidRuleIsRefusedAndTheRulesStay)
{
    putRules(R"({"rules":[{"failure":"status:500"}]})");
    const auto bad = call("PUT", "/_sim/rules", R"({"rules":[{"failure":"explode"}]})");
    EXPECT_EQ(bad->status(), 400);
    EXPECT_TRUE(json(bad->body())["error"]["message"].toString().contains(u"rules[0].failure"));
    EXPECT_EQ(call("POST", "/_sim/rules", "[]")->status(), 400);
    EXPECT_EQ(chat("/v1/chat/completions", "m"), 500);
}

TEST_F(SimControlTest, StatsCountChatRequestsPerProviderAndModel)
{
    chat("/cloudru/v1/chat/completions", "m1");
    chat("/cloudru/v1/chat/completions", "m1");
    chat("/yandex/v1/chat/completions", "m2");
    call("GET", "/cloudru/v1/models");
    const QJsonObject stats = getStats();
    EXPECT_EQ(stats["requests"].toInt(), 3);
    EXPECT_EQ(stats["in_flight"].toInt(), 0);
    EXPECT_EQ(stats["providers"]["cloudru"].toInt(), 2);
    EXPECT_EQ(stats["models"]["m2"].toInt(), 1);
    EXPECT_EQ(stats["provider_models"]["cloudru"]["m1"].toInt(), 2);
}

TEST_F(SimControlTest, ResetClearsRulesStatsAndRestartsTheRandomSequence)
{
    const QByteArray script = R"({"rules":[{"error_rate":0.5}]})";
    putRules(script);
    QList<int> before;
    for (int i = 0; i < 12; ++i)
        before.append(chat("/v1/chat/completions", "m"));
    EXPECT_EQ(call("POST", "/_sim/reset")->status(), 200);
    EXPECT_EQ(getStats()["requests"].toInt(), 0);
    EXPECT_TRUE(json(call("GET", "/_sim/rules")->body())["rules"].toArray().isEmpty());
    putRules(script);
    QList<int> after;
    for (int i = 0; i < 12; ++i)
        after.append(chat("/v1/chat/completions", "m"));
    EXPECT_EQ(after, before);
}

} // namespace
} // namespace sy::sim::test
