// Rule model: failure names, rule JSON (defaults, validation), script files and the choice of the
// most specific rule.
#include "RuleBook.h"
#include "SimScript.h"

#include <QJsonDocument>
#include <gtest/gtest.h>

namespace sy::sim {
namespace {

QJsonObject object(const char *json)
{
    return QJsonDocument::fromJson(json).object();
}

SimRule rule(const char *json)
{
    RuleParse parsed = parseRule(object(json));
    EXPECT_TRUE(parsed.rule) << qPrintable(parsed.error);
    return parsed.rule.value_or(SimRule{});
}

TEST(SimRuleTest, FailureNamesRoundTrip)
{
    for (const char *name : {"status:429", "status:500", "status:418", "hang", "reset", "drop_mid_stream",
                             "empty_200", "malformed_sse", "error_mid_stream:529", "none"}) {
        const std::optional<Failure> failure = parseFailure(QString::fromLatin1(name));
        ASSERT_TRUE(failure) << name;
        EXPECT_EQ(failureName(*failure), QString::fromLatin1(name));
    }
    EXPECT_EQ(parseFailure(u"status:503")->status, 503);
    EXPECT_EQ(*parseFailure(u"error_mid_stream"), (Failure{FailureKind::ErrorMidStream, 500}));
}

TEST(SimRuleTest, UnknownOrOutOfRangeFailuresAreRejected)
{
    for (const char *name : {"status:", "status:99", "status:600", "status:abc", "explode", "",
                             "error_mid_stream:", "error_mid_stream:700", "error_mid_streamx"})
        EXPECT_FALSE(parseFailure(QString::fromLatin1(name))) << name;
}

TEST(SimRuleTest, EmptyRuleHasNoDelayNoFailureAndSixteenTokens)
{
    const SimRule parsed = rule("{}");
    EXPECT_EQ(parsed.latency.count(), 0);
    EXPECT_EQ(parsed.timeToFirstToken.count(), 0);
    EXPECT_EQ(parsed.tokensPerSecond, 0);
    EXPECT_EQ(parsed.outputTokens, 16);
    EXPECT_EQ(parsed.errorRate, 0);
    EXPECT_EQ(parsed.failure.kind, FailureKind::None);
    EXPECT_EQ(parsed.retryAfterSeconds, 1);
    EXPECT_EQ(parsed.dropAfterChunks, 2);
}

TEST(SimRuleTest, EveryFieldIsRead)
{
    const SimRule parsed = rule(R"({"provider":"cloudru","model":"m1","latency_ms":5,"ttft_ms":200,
        "tokens_per_s":50.5,"output_tokens":7,"error_rate":0.25,"failure":"status:429",
        "retry_after_s":3,"drop_after_chunks":4})");
    EXPECT_EQ(parsed.provider, u"cloudru");
    EXPECT_EQ(parsed.model, u"m1");
    EXPECT_EQ(parsed.latency.count(), 5);
    EXPECT_EQ(parsed.timeToFirstToken.count(), 200);
    EXPECT_DOUBLE_EQ(parsed.tokensPerSecond, 50.5);
    EXPECT_EQ(parsed.outputTokens, 7);
    EXPECT_DOUBLE_EQ(parsed.errorRate, 0.25);
    EXPECT_EQ(parsed.failure, (Failure{FailureKind::Status, 429}));
    EXPECT_EQ(parsed.retryAfterSeconds, 3);
    EXPECT_EQ(parsed.dropAfterChunks, 4);
}

TEST(SimRuleTest, FailureWithoutErrorRateFailsEveryRequest)
{
    EXPECT_DOUBLE_EQ(rule(R"({"failure":"hang"})").errorRate, 1.0);
}

TEST(SimRuleTest, ErrorRateWithoutFailureFailsWithStatus500)
{
    EXPECT_EQ(rule(R"({"error_rate":0.5})").failure, (Failure{FailureKind::Status, 500}));
}

TEST(SimRuleTest, ToJsonParsesBackToTheSameRule)
{
    const SimRule original = rule(R"({"provider":"p","model":"m","ttft_ms":20,"tokens_per_s":10,
        "failure":"drop_mid_stream","error_rate":0.5,"drop_after_chunks":3})");
    const SimRule again = rule(QJsonDocument(ruleToJson(original)).toJson().constData());
    EXPECT_TRUE(again.sameTarget(original));
    EXPECT_EQ(again.timeToFirstToken, original.timeToFirstToken);
    EXPECT_EQ(again.failure, original.failure);
    EXPECT_DOUBLE_EQ(again.errorRate, original.errorRate);
    EXPECT_EQ(again.dropAfterChunks, original.dropAfterChunks);
}

struct BadRule {
    const char *json;
    const char *field;
};

class SimRuleRejectTest : public ::testing::TestWithParam<BadRule> {};

TEST_P(SimRuleRejectTest, InvalidRuleIsRejectedNamingTheField)
{
    const RuleParse parsed = parseRule(object(GetParam().json));
    EXPECT_FALSE(parsed.rule);
    EXPECT_TRUE(parsed.error.startsWith(QString::fromLatin1(GetParam().field))) << qPrintable(parsed.error);
}

INSTANTIATE_TEST_SUITE_P(Fields, SimRuleRejectTest, ::testing::Values(
    BadRule{R"({"latency":5})", "latency"},
    BadRule{R"({"latency_ms":"5"})", "latency_ms"},
    BadRule{R"({"latency_ms":-1})", "latency_ms"},
    BadRule{R"({"ttft_ms":1.5})", "ttft_ms"},
    BadRule{R"({"error_rate":1.5})", "error_rate"},
    BadRule{R"({"output_tokens":-3})", "output_tokens"},
    BadRule{R"({"failure":"explode"})", "failure"},
    BadRule{R"({"failure":503})", "failure"},
    BadRule{R"({"model":7})", "model"}));

TEST(RuleBookTest, MostSpecificRuleWins)
{
    RuleBook book;
    book.replaceAll({rule(R"({"output_tokens":1})"),
                     rule(R"({"provider":"cloudru","output_tokens":2})"),
                     rule(R"({"model":"m1","output_tokens":3})"),
                     rule(R"({"provider":"cloudru","model":"m1","output_tokens":4})")});
    EXPECT_EQ(book.select(u"cloudru", u"m1").outputTokens, 4);
    EXPECT_EQ(book.select(u"yandex", u"m1").outputTokens, 3);
    EXPECT_EQ(book.select(u"cloudru", u"m2").outputTokens, 2);
    EXPECT_EQ(book.select(u"yandex", u"m2").outputTokens, 1);
}

TEST(RuleBookTest, ModelRuleBeatsProviderRuleWhateverTheOrder)
{
    RuleBook book;
    book.replaceAll({rule(R"({"model":"m1","output_tokens":3})"),
                     rule(R"({"provider":"cloudru","output_tokens":2})")});
    EXPECT_EQ(book.select(u"cloudru", u"m1").outputTokens, 3);
}

TEST(RuleBookTest, WithoutRulesDefaultsApply)
{
    RuleBook book;
    const SimRule &selected = book.select(u"default", u"anything");
    EXPECT_EQ(selected.failure.kind, FailureKind::None);
    EXPECT_EQ(selected.outputTokens, 16);
}

TEST(RuleBookTest, UpsertReplacesTheRuleOfTheSameTarget)
{
    RuleBook book;
    book.upsert(rule(R"({"provider":"p","model":"m","output_tokens":1})"));
    book.upsert(rule(R"({"model":"m","output_tokens":2})"));
    book.upsert(rule(R"({"provider":"p","model":"m","output_tokens":5})"));
    ASSERT_EQ(book.rules().size(), 2u);
    EXPECT_EQ(book.select(u"p", u"m").outputTokens, 5);
    book.clear();
    EXPECT_TRUE(book.rules().empty());
}

TEST(SimScriptTest, ScriptReadsModelsProvidersAndRules)
{
    const ScriptParse parsed = parseScript(R"({"models":["m1","m2"],"providers":{"yandex":["y1"]},
        "rules":[{"provider":"cloudru","model":"m1","failure":"status:503","error_rate":1.0},
                 {"model":"m2","ttft_ms":200,"tokens_per_s":50}]})");
    ASSERT_TRUE(parsed.script) << qPrintable(parsed.error);
    ASSERT_TRUE(parsed.script->catalog);
    EXPECT_EQ(parsed.script->catalog->modelsFor(QStringLiteral("cloudru")), (QStringList{"m1", "m2"}));
    EXPECT_EQ(parsed.script->catalog->modelsFor(QStringLiteral("yandex")), (QStringList{"y1"}));
    ASSERT_EQ(parsed.script->rules.size(), 2u);
    EXPECT_EQ(parsed.script->rules[0].failure, (Failure{FailureKind::Status, 503}));
    EXPECT_EQ(parsed.script->rules[1].timeToFirstToken.count(), 200);
}

TEST(SimScriptTest, RulesOnlyScriptLeavesTheModelListsAlone)
{
    const ScriptParse parsed = parseScript(R"({"rules":[]})");
    ASSERT_TRUE(parsed.script);
    EXPECT_FALSE(parsed.script->catalog);
}

TEST(SimScriptTest, ErrorsNameTheRuleAndField)
{
    EXPECT_EQ(parseScript(R"({"rules":[{}, {"ttft_ms":"x"}]})").error, u"rules[1].ttft_ms: expected a number");
    EXPECT_EQ(parseScript(R"({"modles":[]})").error, u"modles: unknown field");
    EXPECT_TRUE(parseScript("{not json").error.startsWith(u"invalid JSON"));
    EXPECT_EQ(parseScript(R"({"models":[1]})").error, u"models: expected an array of model names");
}

} // namespace
} // namespace sy::sim
