// RequestLog::query: the in-memory request log lists requests by arrival, newest first (as the
// database does), though records are kept in the order requests finished.
#include "service/RequestLog.h"

#include <gmock/gmock.h>

namespace sy::service {
namespace {

RequestRecord arrivedAt(const char *id, qint64 msAfter, int status = 200)
{
    RequestRecord record;
    record.id = id;
    record.at = QDateTime::fromMSecsSinceEpoch(1'790'000'000'000 + msAfter, Qt::UTC);
    record.status = status;
    record.keyName = QStringLiteral("ide");
    return record;
}

std::vector<QByteArray> ids(const std::vector<RequestRecord> &records)
{
    std::vector<QByteArray> out;
    for (const RequestRecord &r : records)
        out.push_back(r.id);
    return out;
}

TEST(RequestLogTest, ListsByArrivalNotByFinish)
{
    RequestLog log;
    log.add(arrivedAt("quick-later", 200));   // finished first
    log.add(arrivedAt("slow-early", 0));      // arrived first, finished last but one
    log.add(arrivedAt("newest", 300));
    RequestFilter all;
    EXPECT_THAT(ids(log.query(all)), ::testing::ElementsAre("newest", "quick-later", "slow-early"));
}

TEST(RequestLogTest, TheLimitKeepsTheNewestArrivals)
{
    RequestLog log;
    log.add(arrivedAt("b", 100));
    log.add(arrivedAt("a", 0));
    log.add(arrivedAt("c", 200, 503));
    RequestFilter two;
    two.limit = 2;
    EXPECT_THAT(ids(log.query(two)), ::testing::ElementsAre("c", "b"));
    RequestFilter failed;
    failed.failedOnly = true;
    EXPECT_THAT(ids(log.query(failed)), ::testing::ElementsAre("c"));
}

} // namespace
} // namespace sy::service
