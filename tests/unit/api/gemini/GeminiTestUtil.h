#pragma once
// Helpers of the Gemini format tests: JSON literals in, parsed JSON and stream chunks out.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <gtest/gtest.h>

namespace sy::api::gemini::test {

inline QJsonObject object(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << json.toStdString();
    return doc.object();
}

// The chunks of an SSE body framed as Gemini frames them (`data: JSON\r\n\r\n`, nothing else);
// fails the test on anything else.
inline QList<QJsonObject> sseChunks(const QByteArray &bytes)
{
    QList<QJsonObject> out;
    qsizetype pos = 0;
    while (pos < bytes.size()) {
        const qsizetype end = bytes.indexOf("\r\n\r\n", pos);
        EXPECT_GE(end, 0) << "unterminated event in " << bytes.toStdString();
        if (end < 0)
            break;
        const QByteArray frame = bytes.mid(pos, end - pos);
        pos = end + 4;
        EXPECT_TRUE(frame.startsWith("data: ")) << frame.toStdString();
        EXPECT_FALSE(frame.contains('\n')) << frame.toStdString();
        out.append(object(frame.mid(6)));
    }
    return out;
}

// The elements of a JSON array stream; fails the test when the bytes are not one JSON array of objects.
inline QList<QJsonObject> arrayChunks(const QByteArray &bytes)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << bytes.toStdString();
    EXPECT_TRUE(doc.isArray()) << bytes.toStdString();
    QList<QJsonObject> out;
    for (const QJsonValue &value : doc.array()) {
        EXPECT_TRUE(value.isObject()) << bytes.toStdString();
        out.append(value.toObject());
    }
    return out;
}

// The parts of a chunk's first candidate.
inline QJsonArray parts(const QJsonObject &chunk)
{
    return chunk.value("candidates").toArray().at(0).toObject().value("content").toObject().value("parts").toArray();
}

} // namespace sy::api::gemini::test
