#include "RuleBook.h"

namespace sy::sim {

const SimRule &RuleBook::select(QStringView provider, QStringView model) const
{
    const SimRule *best = nullptr;
    for (const SimRule &rule : m_rules) {
        if (rule.appliesTo(provider, model) && (!best || rule.specificity() >= best->specificity()))
            best = &rule;
    }
    return best ? *best : m_defaults;
}

void RuleBook::replaceAll(std::vector<SimRule> rules)
{
    m_rules = std::move(rules);
}

void RuleBook::upsert(SimRule rule)
{
    for (SimRule &existing : m_rules) {
        if (existing.sameTarget(rule)) {
            existing = std::move(rule);
            return;
        }
    }
    m_rules.push_back(std::move(rule));
}

} // namespace sy::sim
