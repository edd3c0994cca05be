// Planning one request: seeded determinism of failure draws and words, error rates, output caps.
#include "ChatPlanner.h"

#include <gtest/gtest.h>

namespace sy::sim {
namespace {

ChatRequest request(int maxTokens = 0)
{
    ChatRequest out;
    out.model = QStringLiteral("m1");
    out.maxTokens = maxTokens;
    out.promptTokens = 9;
    return out;
}

SimRule failingRule(double errorRate)
{
    SimRule rule;
    rule.errorRate = errorRate;
    rule.failure = Failure{FailureKind::Status, 503};
    return rule;
}

// Outcome and text of `count` plans, as one comparable string.
QByteArray run(ChatPlanner &planner, const SimRule &rule, int count)
{
    QByteArray out;
    for (int i = 0; i < count; ++i) {
        const ChatPlan plan = planner.plan(rule, request(), 0);
        out += failureName(plan.failure).toLatin1() + ':' + plan.reply.text() + '\n';
    }
    return out;
}

TEST(ChatPlannerTest, SameSeedMakesTheSameDecisions)
{
    ChatPlanner first(7), second(7);
    EXPECT_EQ(run(first, failingRule(0.5), 50), run(second, failingRule(0.5), 50));
}

TEST(ChatPlannerTest, DifferentSeedsMakeDifferentDecisions)
{
    ChatPlanner first(7), second(8);
    EXPECT_NE(run(first, failingRule(0.5), 50), run(second, failingRule(0.5), 50));
}

TEST(ChatPlannerTest, ReseedRestartsTheSequenceAndIds)
{
    ChatPlanner planner(3);
    const QByteArray firstRun = run(planner, failingRule(0.5), 20);
    planner.reseed(3);
    EXPECT_EQ(run(planner, failingRule(0.5), 20), firstRun);
    EXPECT_EQ(planner.plan(SimRule{}, request(), 0).reply.id, "chatcmpl-sim-21");
}

TEST(ChatPlannerTest, ErrorRateOneAlwaysFailsAndZeroNeverFails)
{
    ChatPlanner planner(1);
    for (int i = 0; i < 100; ++i) {
        EXPECT_EQ(planner.plan(failingRule(1.0), request(), 0).failure, (Failure{FailureKind::Status, 503}));
        EXPECT_EQ(planner.plan(failingRule(0.0), request(), 0).failure.kind, FailureKind::None);
    }
}

TEST(ChatPlannerTest, ErrorRateIsRoughlyTheFailedShare)
{
    ChatPlanner planner(11);
    int failed = 0;
    for (int i = 0; i < 2000; ++i)
        failed += planner.plan(failingRule(0.3), request(), 0).failure.kind != FailureKind::None;
    EXPECT_GT(failed, 500);
    EXPECT_LT(failed, 700);
}

TEST(ChatPlannerTest, AnswerHasOutputTokensWordsAndEchoesTheRequest)
{
    ChatPlanner planner(1);
    SimRule rule;
    rule.outputTokens = 5;
    rule.timeToFirstToken = std::chrono::milliseconds(30);
    const ChatPlan plan = planner.plan(rule, request(), 1234);
    EXPECT_EQ(plan.reply.completionTokens(), 5);
    EXPECT_EQ(plan.reply.text().split(' ').size(), 5);
    EXPECT_EQ(plan.reply.model, u"m1");
    EXPECT_EQ(plan.reply.promptTokens, 9);
    EXPECT_EQ(plan.reply.createdSeconds, 1234);
    EXPECT_EQ(plan.reply.finishReason, "stop");
    EXPECT_EQ(plan.timeToFirstToken.count(), 30);
}

TEST(ChatPlannerTest, MaxTokensCapsTheAnswerWithFinishReasonLength)
{
    ChatPlanner planner(1);
    const ChatPlan plan = planner.plan(SimRule{}, request(3), 0);
    EXPECT_EQ(plan.reply.completionTokens(), 3);
    EXPECT_EQ(plan.reply.finishReason, "length");
    EXPECT_EQ(planner.plan(SimRule{}, request(100), 0).reply.completionTokens(), 16);
}

TEST(ChatPlannerTest, DeltasConcatenateToTheText)
{
    ChatPlanner planner(1);
    const ChatReply reply = planner.plan(SimRule{}, request(), 0).reply;
    QByteArray joined;
    for (qsizetype i = 0; i < reply.completionTokens(); ++i)
        joined += reply.delta(i);
    EXPECT_EQ(joined, reply.text());
}

TEST(ChatPlannerTest, StatusFailureCarriesNoWords)
{
    ChatPlanner planner(1);
    EXPECT_EQ(planner.plan(failingRule(1.0), request(), 0).reply.completionTokens(), 0);
}

} // namespace
} // namespace sy::sim
