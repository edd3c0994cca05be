#pragma once
// Hand-written JSON output for the hot path: building response bodies with QByteArray appends is
// several times cheaper than a QJsonDocument round trip. Any thread.
#include <QByteArray>
#include <QByteArrayView>
#include <QString>

namespace sy::sim {

// Appends `utf8` as a quoted JSON string (escapes quotes, backslashes and control characters).
void appendJsonUtf8(QByteArray &out, QByteArrayView utf8);
inline void appendJsonString(QByteArray &out, const QString &text) { appendJsonUtf8(out, text.toUtf8()); }

} // namespace sy::sim
