#pragma once
// The HealthTracker tests' fixture: a tracker on a FakeClock with the default policy (30 s window,
// 3 failures, cooldowns 5 s .. 300 s), and shorthands to record outcomes.
#include "failover/HealthTracker.h"

#include "support/FakeClock.h"

#include <gtest/gtest.h>

#include <chrono>

namespace sy::failover::test {

inline const QString kChannel = QStringLiteral("openai-main");
inline const QString kOtherChannel = QStringLiteral("openai-backup");
inline const QString kModel = QStringLiteral("gpt-4o");
inline const QString kOtherModel = QStringLiteral("gpt-4o-mini");

class HealthTrackerTest : public ::testing::Test {
protected:
    void fail(int times, const QString &channelId = kChannel)
    {
        for (int i = 0; i < times; ++i)
            health.recordFailure(channelId, kModel);
    }
    void succeed(int times, std::chrono::milliseconds latency = std::chrono::milliseconds(100),
                 const QString &channelId = kChannel,
                 const QString &modelId = kModel)
    {
        for (int i = 0; i < times; ++i)
            health.recordSuccess(channelId, modelId, latency);
    }
    // Time left until the channel's cooldown ends (negative once it has ended).
    std::chrono::milliseconds cooldownLeft(const QString &channelId = kChannel) const
    {
        return std::chrono::duration_cast<std::chrono::milliseconds>(health.cooldownUntil(channelId) - clock.now());
    }

    sy::test::FakeClock clock;
    HealthTracker health{clock};  // default policy: 30 s window, 3 failures, 5 s .. 300 s
};

} // namespace sy::failover::test
