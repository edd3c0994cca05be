#pragma once
// SQL literals for PostgresWorker's statements, formatted by the QPSQL driver as it formats the
// parameters of a prepared statement (QPSQL sends those as literals of an EXECUTE too). A
// statement written with them goes to the server as one simple query: one round trip, where a
// prepared one costs three (PREPARE, EXECUTE, DEALLOCATE). Internal to PostgresStore.
//
// Thread: the thread that owns the connection whose driver is used.
#include <QSqlDriver>
#include <QSqlField>
#include <QString>

namespace sy::storage {

class PostgresLiterals {
public:
    explicit PostgresLiterals(const QSqlDriver *driver) : m_driver(driver) {}

    QString text(const QString &value) const
    {
        m_field.setValue(value);
        return m_driver->formatValue(m_field);
    }
    QString textOrNull(const QString &value) const { return value.isEmpty() ? QStringLiteral("NULL") : text(value); }
    QString utf8(const QByteArray &bytes) const { return text(QString::fromUtf8(bytes)); }
    static QString integer(qint64 value) { return QString::number(value); }
    static QString boolean(bool value) { return value ? QStringLiteral("true") : QStringLiteral("false"); }

private:
    const QSqlDriver *m_driver;
    mutable QSqlField m_field{QString(), QMetaType::fromType<QString>()};
};

} // namespace sy::storage
