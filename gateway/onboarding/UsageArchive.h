#pragma once
// UsageArchive: the charges that left the ledger's memory (billing::Ledger::kRetainedEntries),
// summed per UTC day, key and answering model, so the usage history of a gateway without a
// database (the demo) keeps the same totals however long it runs. With a database there is no
// need: it holds every charge. Each sum comes out as one UsageCharge without a request id — a
// charge whose request the log no longer holds — with `requests` the number of charges in it.
// (The ledger keeps twice as many entries as the request log keeps records, so a request still
// in the log has its charge in the ledger's memory, not here.)
//
// Bounded by age, not by traffic: days more than kKeptDays before the newest day recorded are
// dropped (the usage history asks at most that far back), so it holds at most kKeptDays + 1
// days × the keys and models charged on them.
//
// Thread: the owner's; not thread-safe.
#include "onboarding/UsageHistory.h"

#include <map>
#include <tuple>

namespace sy::onboarding {

class UsageArchive {
public:
    static constexpr int kKeptDays = 366;

    // Adds `charge` to its day's sum for its key and model; one older than kKeptDays before the
    // newest day recorded adds nothing.
    void record(const UsageCharge &charge);
    // The sums, oldest day first; `at` is the start of the day (UTC).
    std::vector<UsageCharge> charges() const;
    std::size_t size() const { return m_sums.size(); }

private:
    using Slot = std::tuple<QDate, QString, QString>;  // day (UTC), key, model
    std::map<Slot, UsageCharge> m_sums;
    QDate m_newestDay;
};

} // namespace sy::onboarding
