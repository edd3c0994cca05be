#pragma once
// Helpers of the Anthropic format tests: JSON literals in, parsed JSON and SSE events out.
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <gtest/gtest.h>

namespace sy::api::anthropic::test {

inline QJsonObject object(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << json.toStdString();
    return doc.object();
}

// The SSE events of `bytes` as (name, parsed data); fails the test on anything not framed as
// `event: NAME\ndata: JSON\n\n`.
inline QList<QPair<QByteArray, QJsonObject>> events(const QByteArray &bytes)
{
    QList<QPair<QByteArray, QJsonObject>> out;
    qsizetype pos = 0;
    while (pos < bytes.size()) {
        const qsizetype end = bytes.indexOf("\n\n", pos);
        EXPECT_GE(end, 0) << "unterminated event in " << bytes.toStdString();
        if (end < 0)
            break;
        const QByteArray frame = bytes.mid(pos, end - pos);
        pos = end + 2;
        const QList<QByteArray> lines = frame.split('\n');
        EXPECT_EQ(lines.size(), 2) << frame.toStdString();
        EXPECT_TRUE(lines.value(0).startsWith("event: ")) << frame.toStdString();
        EXPECT_TRUE(lines.value(1).startsWith("data: ")) << frame.toStdString();
        out.append({lines.value(0).mid(7), object(lines.value(1).mid(6))});
    }
    return out;
}

inline QList<QByteArray> names(const QList<QPair<QByteArray, QJsonObject>> &list)
{
    QList<QByteArray> out;
    for (const auto &e : list)
        out.append(e.first);
    return out;
}

} // namespace sy::api::anthropic::test
