#pragma once
// SimState: everything a running simulator knows — rules, listed models, counters and the seeded
// planner — shared by the chat routes and the control routes. Owned by SimServer.
// Thread: the simulator's thread only.
#include "ChatPlanner.h"
#include "RuleBook.h"
#include "SimScript.h"
#include "SimStats.h"

namespace sy::sim {

struct SimState {
    explicit SimState(quint32 randomSeed) : planner(randomSeed), seed(randomSeed) {}

    // Rules (and the model lists when the script names them) of `script` replace the current ones.
    void apply(const SimScript &script)
    {
        rules.replaceAll(script.rules);
        if (script.catalog)
            catalog = *script.catalog;
    }
    // POST /_sim/reset: no rules, no counts, the random sequence from the start. Model lists and
    // requests in flight are kept.
    void reset()
    {
        rules.clear();
        stats.clearCounts();
        planner.reseed(seed);
    }

    RuleBook rules;
    ModelCatalog catalog;
    SimStats stats;
    ChatPlanner planner;
    quint32 seed;
};

} // namespace sy::sim
