#pragma once
// The attempts of one request, as sent in `X-TsarRouter-Attempts` (SPEC §6) and, when every
// candidate failed, as `error.metadata.attempts` of the 502 (SPEC §4).
#include <QJsonArray>
#include <QString>
#include <optional>
#include <vector>

namespace sy::service {

struct AttemptRecord {
    QString provider;                    // channel label (provider slug, or channel id)
    QString model;                       // public model id
    QString status;                      // ok | error | insufficient_balance | simulated_fail | skipped
    std::optional<qint64> latencyMs;
    QString error;                       // why the gateway moved on; empty for ok
};

class AttemptTrace {
public:
    void add(AttemptRecord record) { m_records.push_back(std::move(record)); }
    const std::vector<AttemptRecord> &records() const { return m_records; }
    int count() const { return int(m_records.size()); }

    QJsonArray toJson() const;
    // Compact JSON for the response header.
    QByteArray toHeaderValue() const;
    // Appends QJsonDocument(toJson()).toJson(Compact), byte for byte, without building it.
    void appendJson(QByteArray &out) const;

private:
    void appendJson(QByteArray &out, bool headerSafe) const;

    std::vector<AttemptRecord> m_records;
};

} // namespace sy::service
