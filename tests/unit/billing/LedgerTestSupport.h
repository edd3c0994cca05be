#pragma once
// Helpers shared by the Ledger tests: two keys, admission result accessors, a charge entry and a
// fixture with a FakeClock. Single-threaded test use.
#include "billing/Ledger.h"

#include "support/FakeClock.h"

#include <gtest/gtest.h>

#include <optional>
#include <variant>

namespace sy::billing::test {

inline const QString kKey = QStringLiteral("team-a");
inline const QString kOtherKey = QStringLiteral("team-b");

inline bool admitted(const std::variant<ReservationId, AdmissionRefusal> &result)
{
    return std::holds_alternative<ReservationId>(result);
}

inline ReservationId idOf(const std::variant<ReservationId, AdmissionRefusal> &result)
{
    EXPECT_TRUE(admitted(result));
    return admitted(result) ? std::get<ReservationId>(result) : 0;
}

inline std::optional<AdmissionRefusal> refusalOf(const std::variant<ReservationId, AdmissionRefusal> &result)
{
    if (admitted(result))
        return std::nullopt;
    return std::get<AdmissionRefusal>(result);
}

inline LedgerEntry charge(Nanos amount, const QString &channel = QStringLiteral("deepseek-main"),
                   const QString &requestId = QStringLiteral("req-1"))
{
    LedgerEntry entry;
    entry.requestId = requestId;
    entry.modelId = QStringLiteral("deepseek-chat");
    entry.channelId = channel;
    entry.promptTokens = 10;
    entry.completionTokens = 20;
    entry.amount = amount;
    return entry;
}

class LedgerTest : public ::testing::Test {
protected:
    sy::test::FakeClock clock;
};

} // namespace sy::billing::test
