// CredentialStates (SPEC §3.6, §4): a 429 skips the credential until its retry-after has passed, a
// 401/402/403 demotes it behind the channel's other credentials for 10 minutes or until it
// succeeds, the attempt order that follows, and parsing of retry-after (seconds and HTTP dates).
#include "limits/CredentialStates.h"

#include "support/FakeClock.h"

#include <gtest/gtest.h>

#include <QDateTime>

#include <chrono>
#include <ctime>
#include <functional>
#include <vector>

namespace sy::limits {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

const QString kChannel = QStringLiteral("openai-main");
const QString kOtherChannel = QStringLiteral("openai-backup");

class CredentialStatesTest : public ::testing::Test {
protected:
    sy::test::FakeClock clock;
    CredentialStates states{clock};  // demotion: 10 min
};

// --- rate limited -------------------------------------------------------------------------------

TEST_F(CredentialStatesTest, FreshCredentialIsNeitherRateLimitedNorDemoted)
{
    EXPECT_FALSE(states.isRateLimited(kChannel, 0));
    EXPECT_FALSE(states.isDemoted(kChannel, 0));
    EXPECT_EQ(states.attemptOrder(kChannel, 2), (std::vector<int>{0, 1}));
}

TEST_F(CredentialStatesTest, RateLimitedCredentialIsSkippedUntilRetryAfterHasPassed)
{
    states.markRateLimited(kChannel, 0, 30s);
    EXPECT_EQ(states.rateLimitedUntil(kChannel, 0), clock.now() + 30s);
    EXPECT_TRUE(states.isRateLimited(kChannel, 0));
    clock.advance(29'999ms);
    EXPECT_TRUE(states.isRateLimited(kChannel, 0));
    clock.advance(1ms);
    EXPECT_FALSE(states.isRateLimited(kChannel, 0));
}

TEST_F(CredentialStatesTest, ZeroRetryAfterDoesNotSkipTheCredential)
{
    states.markRateLimited(kChannel, 0, 0ms);
    EXPECT_FALSE(states.isRateLimited(kChannel, 0));
}

TEST_F(CredentialStatesTest, NewRetryAfterReplacesTheOldOne)
{
    states.markRateLimited(kChannel, 0, 60s);
    states.markRateLimited(kChannel, 0, 2s);
    clock.advance(2s);
    EXPECT_FALSE(states.isRateLimited(kChannel, 0));
    states.markRateLimited(kChannel, 0, 90s);
    clock.advance(89s);
    EXPECT_TRUE(states.isRateLimited(kChannel, 0));
}

TEST_F(CredentialStatesTest, RateLimitBelongsToOneCredentialOfOneChannel)
{
    states.markRateLimited(kChannel, 1, 30s);
    EXPECT_TRUE(states.isRateLimited(kChannel, 1));
    EXPECT_FALSE(states.isRateLimited(kChannel, 0));
    EXPECT_FALSE(states.isRateLimited(kChannel, 2));
    EXPECT_FALSE(states.isRateLimited(kOtherChannel, 1));
    EXPECT_FALSE(states.isDemoted(kChannel, 1));
}

// --- demoted ------------------------------------------------------------------------------------

TEST_F(CredentialStatesTest, DemotionLastsTenMinutes)
{
    states.markDemoted(kChannel, 0);
    EXPECT_TRUE(states.isDemoted(kChannel, 0));
    clock.advance(9min + 59'999ms);
    EXPECT_TRUE(states.isDemoted(kChannel, 0));
    clock.advance(1ms);
    EXPECT_FALSE(states.isDemoted(kChannel, 0));
    EXPECT_FALSE(states.isRateLimited(kChannel, 0));  // demotion never skips
}

TEST_F(CredentialStatesTest, DemotionLengthIsConfigurable)
{
    CredentialStates shortDemotion(clock, 30s);
    shortDemotion.markDemoted(kChannel, 0);
    clock.advance(29s);
    EXPECT_TRUE(shortDemotion.isDemoted(kChannel, 0));
    clock.advance(1s);
    EXPECT_FALSE(shortDemotion.isDemoted(kChannel, 0));
}

TEST_F(CredentialStatesTest, SuccessEndsDemotionAndRateLimitEarly)
{
    states.markDemoted(kChannel, 0);
    states.markRateLimited(kChannel, 1, 60s);
    states.markDemoted(kChannel, 2);
    states.markSucceeded(kChannel, 0);
    states.markSucceeded(kChannel, 1);
    EXPECT_FALSE(states.isDemoted(kChannel, 0));
    EXPECT_FALSE(states.isRateLimited(kChannel, 1));
    EXPECT_TRUE(states.isDemoted(kChannel, 2));  // only the credential that succeeded
}

TEST_F(CredentialStatesTest, DemotionOutlivesARateLimitOnTheSameCredential)
{
    states.markDemoted(kChannel, 0);
    states.markRateLimited(kChannel, 0, 5s);
    clock.advance(5s);
    EXPECT_FALSE(states.isRateLimited(kChannel, 0));
    EXPECT_TRUE(states.isDemoted(kChannel, 0));
}

// --- attempt order ------------------------------------------------------------------------------

TEST_F(CredentialStatesTest, AttemptOrderPutsDemotedLastAndLeavesRateLimitedOut)
{
    struct Row {
        const char *what;
        int count;
        std::function<void(CredentialStates &)> mark;
        std::vector<int> order;
        std::vector<int> rateLimited;
    };
    const std::vector<Row> rows = {
        {"nothing marked", 3, [](CredentialStates &) {}, {0, 1, 2}, {}},
        {"no credentials", 0, [](CredentialStates &) {}, {}, {}},
        {"first demoted", 3, [](CredentialStates &s) { s.markDemoted(kChannel, 0); }, {1, 2, 0}, {}},
        {"two demoted keep their order", 3,
         [](CredentialStates &s) {
             s.markDemoted(kChannel, 1);
             s.markDemoted(kChannel, 0);
         },
         {2, 0, 1}, {}},
        {"all demoted", 2,
         [](CredentialStates &s) {
             s.markDemoted(kChannel, 0);
             s.markDemoted(kChannel, 1);
         },
         {0, 1}, {}},
        {"middle rate limited", 3, [](CredentialStates &s) { s.markRateLimited(kChannel, 1, 10s); }, {0, 2}, {1}},
        {"all rate limited", 3,
         [](CredentialStates &s) {
             for (int i = 0; i < 3; ++i)
                 s.markRateLimited(kChannel, i, 10s);
         },
         {}, {0, 1, 2}},
        {"rate limited and demoted", 3,
         [](CredentialStates &s) {
             s.markRateLimited(kChannel, 0, 10s);
             s.markDemoted(kChannel, 1);
         },
         {2, 1}, {0}},
        {"demoted and rate limited is left out", 3,
         [](CredentialStates &s) {
             s.markDemoted(kChannel, 1);
             s.markRateLimited(kChannel, 1, 10s);
         },
         {0, 2}, {1}},
        {"other channel's marks do not apply", 2,
         [](CredentialStates &s) {
             s.markDemoted(kOtherChannel, 0);
             s.markRateLimited(kOtherChannel, 1, 10s);
         },
         {0, 1}, {}},
        {"credentials beyond count are ignored", 2,
         [](CredentialStates &s) { s.markRateLimited(kChannel, 2, 10s); }, {0, 1}, {}},
    };
    for (const Row &row : rows) {
        SCOPED_TRACE(row.what);
        CredentialStates fresh(clock);
        row.mark(fresh);
        std::vector<int> rateLimited;
        EXPECT_EQ(fresh.attemptOrder(kChannel, row.count, &rateLimited), row.order);
        EXPECT_EQ(rateLimited, row.rateLimited);
        EXPECT_EQ(fresh.attemptOrder(kChannel, row.count), row.order);  // without the out-list
    }
}

TEST_F(CredentialStatesTest, CredentialsReturnToTheirPlaceWhenTheirTimeIsUp)
{
    states.markDemoted(kChannel, 0);
    states.markRateLimited(kChannel, 1, 90s);
    std::vector<int> rateLimited;
    EXPECT_EQ(states.attemptOrder(kChannel, 3, &rateLimited), (std::vector<int>{2, 0}));
    EXPECT_EQ(rateLimited, std::vector<int>{1});

    clock.advance(90s);
    rateLimited.clear();
    EXPECT_EQ(states.attemptOrder(kChannel, 3, &rateLimited), (std::vector<int>{1, 2, 0}));
    EXPECT_TRUE(rateLimited.empty());

    clock.advance(10min - 90s - 1ms);
    EXPECT_EQ(states.attemptOrder(kChannel, 3), (std::vector<int>{1, 2, 0}));
    clock.advance(1ms);
    EXPECT_EQ(states.attemptOrder(kChannel, 3), (std::vector<int>{0, 1, 2}));
}

// --- retry-after --------------------------------------------------------------------------------

const QDateTime kNow(QDate(2025, 1, 1), QTime(0, 0), Qt::UTC);  // Wed, 01 Jan 2025 00:00:00 GMT
constexpr milliseconds kFallback = 5s;

TEST(CredentialStatesRetryAfterTest, ParsesSecondsAndHttpDates)
{
    struct Row {
        QByteArray value;
        milliseconds expected;
    };
    const std::vector<Row> rows = {
        {"120", 120s},
        {"0", 0ms},
        {" 7 ", 7s},
        {"1.5", 1'500ms},
        {"Wed, 01 Jan 2025 00:01:30 GMT", 90s},
        {"Thu, 02 Jan 2025 00:00:00 GMT", 24h},
        {"Wed, 01 Jan 2025 00:00:00 GMT", 0ms},   // now
        {"Tue, 31 Dec 2024 23:59:00 GMT", 0ms},   // already past
        {"", kFallback},
        {"   ", kFallback},
        {"soon", kFallback},
        {"-3", kFallback},
        {"2025-01-01T00:01:30Z", kFallback},      // not an HTTP date
        {"Wed, 01 Jan 2025 00:01:30", kFallback}, // no zone
    };
    for (const Row &row : rows) {
        SCOPED_TRACE(row.value.toStdString());
        EXPECT_EQ(CredentialStates::parseRetryAfter(row.value, kFallback, kNow), row.expected);
    }
}

TEST(CredentialStatesRetryAfterTest, FallbackIsTheCallersDefault)
{
    EXPECT_EQ(CredentialStates::parseRetryAfter({}, 5s, kNow), 5s);
    EXPECT_EQ(CredentialStates::parseRetryAfter("garbage", 12s, kNow), 12s);
}

TEST(CredentialStatesRetryAfterTest, HttpDateIsGmtWhateverTheZoneOfNow)
{
    const QDateTime nowInBerlinOffset = kNow.toOffsetFromUtc(2 * 3600);
    EXPECT_EQ(CredentialStates::parseRetryAfter("Wed, 01 Jan 2025 00:01:30 GMT", kFallback, nowInBerlinOffset), 90s);
}

TEST(CredentialStatesRetryAfterTest, NonFiniteSecondsFallBack)
{
    for (const QByteArray &value : {QByteArray("inf"), QByteArray("nan"), QByteArray("-inf")}) {
        SCOPED_TRACE(value.toStdString());
        EXPECT_EQ(CredentialStates::parseRetryAfter(value, kFallback, kNow), kFallback);
    }
}

TEST(CredentialStatesRetryAfterTest, HugeSecondsNeverBecomeANegativeWait)
{
    for (const QByteArray &value : {QByteArray("1e30"), QByteArray("99999999999999999999")}) {
        SCOPED_TRACE(value.toStdString());
        EXPECT_GE(CredentialStates::parseRetryAfter(value, kFallback, kNow), 0ms);
    }
}

TEST_F(CredentialStatesTest, FarFutureRetryAfterStillSkipsTheCredential)
{
    for (const QByteArray &value : {QByteArray("1e30"), QByteArray("Fri, 31 Dec 9999 23:59:59 GMT")}) {
        SCOPED_TRACE(value.toStdString());
        states.markRateLimited(kChannel, 0, CredentialStates::parseRetryAfter(value, kFallback, clock.wallNow()));
        clock.advance(1h);
        EXPECT_TRUE(states.isRateLimited(kChannel, 0));
        states.markSucceeded(kChannel, 0);
    }
}

// The HTTP date is GMT; the machine's own zone, and its daylight-saving gaps, must not matter.
TEST(CredentialStatesRetryAfterTest, HttpDateIgnoresTheLocalZone)
{
    const QByteArray previous = qgetenv("TZ");
    qputenv("TZ", "Europe/Berlin");
    tzset();
    // 02:30 on 30 Mar 2025 does not exist on a Berlin wall clock (02:00 jumps to 03:00).
    const QDateTime now(QDate(2025, 3, 30), QTime(2, 0), Qt::UTC);
    const auto inGap = CredentialStates::parseRetryAfter("Sun, 30 Mar 2025 02:30:00 GMT", kFallback, now);
    const auto normal = CredentialStates::parseRetryAfter("Sun, 30 Mar 2025 04:30:00 GMT", kFallback, now);
    if (previous.isNull())
        qunsetenv("TZ");
    else
        qputenv("TZ", previous);
    tzset();
    EXPECT_EQ(inGap, 30min);
    EXPECT_EQ(normal, 150min);
}

} // namespace
} // namespace sy::limits
