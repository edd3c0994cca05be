#pragma once
// ChatPlanner: decides what the simulator does with one chat request, from the rule that applies
// and a seeded random generator, so that a run with the same seed and the same requests makes the
// same decisions (failure draws and generated words).
// Thread: one thread (the simulator's); not synchronised.
#include "ChatTypes.h"
#include "SimRule.h"

#include <QRandomGenerator>

namespace sy::sim {

struct ChatPlan {
    Failure failure;  // kind None: a normal answer
    std::chrono::milliseconds latency{0};
    std::chrono::milliseconds timeToFirstToken{0};
    double tokensPerSecond = 0;
    int retryAfterSeconds = 1;
    int dropAfterChunks = 2;
    bool stream = false;
    ChatReply reply;  // filled for answers that carry content (None, DropMidStream)
};

class ChatPlanner {
public:
    explicit ChatPlanner(quint32 seed = 1);

    // Draws the outcome (error_rate) and the words; `nowSeconds` becomes reply.createdSeconds.
    ChatPlan plan(const SimRule &rule, const ChatRequest &request, qint64 nowSeconds);
    // Restarts the random sequence and the reply ids as if newly constructed with `seed`.
    void reseed(quint32 seed);

private:
    QRandomGenerator m_random;
    quint64 m_nextId = 1;
};

} // namespace sy::sim
