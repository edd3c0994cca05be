#include "onboarding/UsageArchive.h"

namespace sy::onboarding {

void UsageArchive::record(const UsageCharge &charge)
{
    if (!charge.at.isValid())
        return;
    const QDate day = charge.at.toUTC().date();
    if (!m_newestDay.isValid() || day > m_newestDay) {
        m_newestDay = day;
        const auto keep = m_sums.lower_bound(Slot{m_newestDay.addDays(-kKeptDays), QString(), QString()});
        m_sums.erase(m_sums.begin(), keep);
    }
    if (day < m_newestDay.addDays(-kKeptDays))
        return;  // the clock was set back by more than what is kept
    const auto [it, added] = m_sums.try_emplace(Slot{day, charge.keyName, charge.model});
    UsageCharge &sum = it->second;
    if (added) {
        sum.at = QDateTime(day, QTime(0, 0), Qt::UTC);
        sum.keyName = charge.keyName;
        sum.model = charge.model;
        sum.requests = 0;
    }
    sum.requests += charge.requests;
    sum.promptTokens += charge.promptTokens;
    sum.completionTokens += charge.completionTokens;
    sum.amountNanos += charge.amountNanos;
}

std::vector<UsageCharge> UsageArchive::charges() const
{
    std::vector<UsageCharge> out;
    out.reserve(m_sums.size());
    for (const auto &[slot, sum] : m_sums)
        out.push_back(sum);
    return out;
}

} // namespace sy::onboarding
