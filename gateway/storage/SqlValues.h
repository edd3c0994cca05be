#pragma once
// How values are spelled in the database. Internal to SqliteStore. Thread: any.
#include <QDateTime>
#include <QString>
#include <QVariant>

namespace sy::storage {

// Times are stored as UTC ISO 8601 with milliseconds ("2025-01-01T00:00:00.000Z"): fixed width,
// so text order is time order and `at < ?` compares times. An invalid time is stored as "".
inline QString toStoredTime(const QDateTime &at)
{
    return at.isValid() ? at.toUTC().toString(Qt::ISODateWithMs) : QString(QLatin1String(""));
}

inline QDateTime fromStoredTime(const QString &text)
{
    QDateTime at = QDateTime::fromString(text, Qt::ISODateWithMs);
    return at.isValid() ? at.toUTC() : QDateTime();
}

// Empty text is stored as NULL where NULL has a meaning (a charge without a request id is not
// deduplicated) and read back as an empty string.
inline QVariant nullIfEmpty(const QString &text)
{
    return text.isEmpty() ? QVariant(QMetaType::fromType<QString>()) : QVariant(text);
}

} // namespace sy::storage
