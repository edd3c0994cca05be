#pragma once
// Helpers of the wire format tests: requests as the HTTP front hands them over, JSON read-back,
// and replies planned from a rule.
#include "ChatPlanner.h"
#include "http/HttpTypes.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <gtest/gtest.h>

namespace sy::sim::test {

inline http::HttpRequest postOf(const QByteArray &body, const http::HeaderList &headers = {},
                                const QString &query = {})
{
    http::HttpRequest request;
    request.method = "POST";
    request.body = body;
    request.headers = headers;
    request.query = QUrlQuery(query);
    return request;
}

// const, so that chained [] look-ups on the result read instead of inserting.
inline const QJsonObject parseJson(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << json.constData();
    return document.object();
}

// A reply to `request` under a rule of `words` output tokens (seed 1, created 1700000000).
inline ChatReply plannedReply(const ChatRequest &request, int words)
{
    SimRule rule;
    rule.outputTokens = words;
    ChatPlanner planner(1);
    return planner.plan(rule, request, 1700000000).reply;
}

} // namespace sy::sim::test
