#pragma once
// Helpers of the OpenAI Responses format tests: JSON literals in, parsed JSON and SSE events out.
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <gtest/gtest.h>

namespace sy::api::responses::test {

inline QJsonObject object(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << json.toStdString();
    return doc.object();
}

// The data objects of the events in `bytes`; fails the test on anything not framed as
// `event: TYPE\ndata: JSON\n\n` with data.type == TYPE, or on a `[DONE]`.
inline QList<QJsonObject> events(const QByteArray &bytes)
{
    QList<QJsonObject> out;
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
        const QJsonObject data = object(lines.value(1).mid(6));
        EXPECT_EQ(data.value("type").toString().toUtf8(), lines.value(0).mid(7)) << frame.toStdString();
        out.append(data);
    }
    return out;
}

inline QStringList types(const QList<QJsonObject> &list)
{
    QStringList out;
    for (const QJsonObject &e : list)
        out.append(e.value("type").toString());
    return out;
}

} // namespace sy::api::responses::test
