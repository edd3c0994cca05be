#pragma once
// RequestLog: the most recent requests in memory, newest first, for the dashboard, the admin API
// and the live event stream. Bounded by count (`capacity`) and by the retention bounds of the
// configuration (setRetention), so memory does not keep what the database drops; durable storage
// of the log is the Store's job.
//
// Thread: the gateway thread.
#include "service/RequestRecord.h"

#include <QObject>
#include <deque>
#include <optional>

namespace sy::service {

struct RequestFilter {
    QString keyName;                   // empty = any
    QString model;                     // requested or answering model; empty = any
    std::optional<int> status;         // exact status
    std::optional<bool> failedOnly;    // status >= 400
    std::optional<bool> failedOver;
    int limit = 100;
};

class RequestLog : public QObject {
    Q_OBJECT
public:
    explicit RequestLog(int capacity = 5'000, QObject *parent = nullptr);

    // Retention as in the configuration (0 = no bound of that kind): at most `maxCount` records
    // (and never more than `capacity`), none that arrived more than `maxAgeDays` days before
    // `nowUtc`. Trims at once; add() then measures age from the arrival of the record it adds.
    void setRetention(int maxAgeDays, int maxCount, const QDateTime &nowUtc);
    void add(RequestRecord record);
    // The records matching `filter`, newest arrival first, at most filter.limit.
    std::vector<RequestRecord> query(const RequestFilter &filter) const;
    std::optional<RequestRecord> find(const QByteArray &id) const;
    int size() const { return int(m_records.size()); }

signals:
    void recorded(const sy::service::RequestRecord &record);

private:
    void trim(const QDateTime &nowUtc, bool everyRecord);

    // Message contents stay in memory for this many of the newest records; older ones keep
    // theirs only in the database (each record's content can be 128 KiB).
    static constexpr int kContentInMemory = 200;

    int m_capacity;
    int m_maxAgeDays = 0;
    int m_maxCount = 0;
    std::deque<RequestRecord> m_records;   // newest at the front
};

} // namespace sy::service
