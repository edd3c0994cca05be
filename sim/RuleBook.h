#pragma once
// RuleBook: the current rules and the choice of the one that applies to a request.
// Thread: one thread (the simulator's); not synchronised.
#include "SimRule.h"

#include <vector>

namespace sy::sim {

class RuleBook {
public:
    // The most specific rule for (provider, model): provider+model > model > provider >
    // catch-all; among equally specific rules the one added last. Without a match, a rule of
    // defaults (no delay, no failure, 16 tokens). The reference is valid until the next change.
    const SimRule &select(QStringView provider, QStringView model) const;

    void replaceAll(std::vector<SimRule> rules);
    // Replaces the rule with the same (provider, model) target, or appends it.
    void upsert(SimRule rule);
    void clear() { m_rules.clear(); }
    const std::vector<SimRule> &rules() const { return m_rules; }

private:
    std::vector<SimRule> m_rules;
    SimRule m_defaults;
};

} // namespace sy::sim
