#include "ChatPlanner.h"

#include <algorithm>
#include <array>

namespace sy::sim {

namespace {

constexpr std::array<QByteArrayView, 32> kWords = {
    "the", "router", "sends", "each", "request", "to", "a", "healthy", "channel", "and",
    "simulated", "tokens", "arrive", "quickly", "while", "failover", "keeps", "answers", "flowing",
    "from", "several", "providers", "with", "steady", "latency", "so", "every", "client", "sees",
    "one", "reliable", "model",
};

} // namespace

ChatPlanner::ChatPlanner(quint32 seed) : m_random(seed) {}

void ChatPlanner::reseed(quint32 seed)
{
    m_random.seed(seed);
    m_nextId = 1;
}

ChatPlan ChatPlanner::plan(const SimRule &rule, const ChatRequest &request, qint64 nowSeconds)
{
    ChatPlan plan;
    plan.latency = rule.latency;
    plan.timeToFirstToken = rule.timeToFirstToken;
    plan.tokensPerSecond = rule.tokensPerSecond;
    plan.retryAfterSeconds = rule.retryAfterSeconds;
    plan.dropAfterChunks = rule.dropAfterChunks;
    plan.stream = request.stream;

    // Draw only for a real probability, so rules of 0 and 1 leave the sequence untouched.
    bool fails = rule.errorRate >= 1.0;
    if (rule.errorRate > 0 && rule.errorRate < 1.0)
        fails = m_random.generateDouble() < rule.errorRate;
    if (fails)
        plan.failure = rule.failure;

    ChatReply &reply = plan.reply;
    reply.id = QByteArray("chatcmpl-sim-") + QByteArray::number(m_nextId++);
    reply.createdSeconds = nowSeconds;
    reply.model = request.model;
    reply.promptTokens = request.promptTokens;
    reply.includeUsage = request.includeUsage;
    reply.jsonArrayStream = request.jsonArrayStream;
    reply.embeddingInputs = request.embeddingInputs;
    reply.dimensions = request.dimensions;
    reply.base64 = request.base64;
    const bool carriesContent = plan.failure.kind == FailureKind::None
                             || plan.failure.kind == FailureKind::DropMidStream
                             || plan.failure.kind == FailureKind::ErrorMidStream;
    if (!request.embeddingInputs.isEmpty())
        return plan;  // vectors come from the texts, not from the random sequence
    if (carriesContent && !request.firstToolName.isEmpty() && request.lastTurnIsUserText) {
        // A tool call of the first declared tool; arguments are not generated from its schema.
        reply.toolName = request.firstToolName;
        reply.toolArguments = QByteArrayLiteral("{}");
        reply.finishReason = "tool_calls";
    } else if (carriesContent) {
        int count = rule.outputTokens;
        if (request.maxTokens > 0 && request.maxTokens < count) {
            count = request.maxTokens;
            reply.finishReason = "length";
        }
        reply.words.reserve(size_t(count));
        for (int i = 0; i < count; ++i)
            reply.words.push_back(kWords[m_random.bounded(quint32(kWords.size()))]);
    }
    return plan;
}

} // namespace sy::sim
