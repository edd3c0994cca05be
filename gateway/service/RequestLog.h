#pragma once
// RequestLog: the most recent requests in memory, newest first, for the dashboard, the admin API
// and the live event stream. Bounded by count; durable storage of the log is the Store's job.
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

    void add(RequestRecord record);
    std::vector<RequestRecord> query(const RequestFilter &filter) const;
    std::optional<RequestRecord> find(const QByteArray &id) const;
    int size() const { return int(m_records.size()); }

signals:
    void recorded(const sy::service::RequestRecord &record);

private:
    int m_capacity;
    std::deque<RequestRecord> m_records;   // newest at the front
};

} // namespace sy::service
