#pragma once
// ExchangeContext: what the service hands an exchange (chat or embeddings) about the request
// beyond its body.
#include "core/Clock.h"
#include "service/RequestRecord.h"

#include <QByteArray>
#include <QSet>
#include <QString>

namespace sy::service {

// What the service knows about the request beyond its body.
struct ExchangeContext {
    QByteArray requestId;
    RequestRecord record;              // filled in so far by the service (id, key, timings of auth)
    Clock::TimePoint arrivedAt{};
    QSet<QString> simulateFail;        // X-Simulate-Fail
    QByteArray conversation;           // sticky conversation key
};

} // namespace sy::service
