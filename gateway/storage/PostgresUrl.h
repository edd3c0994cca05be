#pragma once
// PostgresUrl: the `database: postgres://user:password@host:port/dbname?options` address of a
// shared store, split into what Qt's QPSQL driver takes. Options: `reservation_lease_s` (how
// long a money reservation outlives its gateway, default 30), `connect_timeout` (seconds,
// default 5), and libpq's `sslmode`, `application_name`, passed on. Internal to PostgresStore
// and StoreSetup. Thread: any; values.
#include <QString>

#include <chrono>
#include <variant>

namespace sy::storage {

struct PostgresAddress {
    QString host = QStringLiteral("127.0.0.1");
    int port = 5432;
    QString user;
    QString password;
    QString database;
    QString connectOptions;                         // "key=value;key=value" for QSqlDatabase
    std::chrono::milliseconds reservationLease{30'000};

    // The address without its password, for messages and logs.
    QString redacted() const;
};

// True for `postgres://…` and `postgresql://…` (a SQLite path never starts so).
bool isPostgresUrl(const QString &text);

// The parts of `url`, or what is wrong with it (the message never repeats the password).
std::variant<PostgresAddress, QString> parsePostgresUrl(const QString &url);

} // namespace sy::storage
