#include "service/RequestLog.h"

namespace sy::service {

RequestLog::RequestLog(int capacity, QObject *parent)
    : QObject(parent)
    , m_capacity(capacity)
{
}

void RequestLog::add(RequestRecord record)
{
    m_records.push_front(std::move(record));
    while (int(m_records.size()) > m_capacity)
        m_records.pop_back();
    emit recorded(m_records.front());
}

std::vector<RequestRecord> RequestLog::query(const RequestFilter &filter) const
{
    std::vector<RequestRecord> out;
    for (const RequestRecord &r : m_records) {
        if (int(out.size()) >= filter.limit)
            break;
        if (!filter.keyName.isEmpty() && r.keyName != filter.keyName)
            continue;
        if (!filter.model.isEmpty() && r.requestedModel != filter.model && r.answeringModel != filter.model)
            continue;
        if (filter.status && r.status != *filter.status)
            continue;
        if (filter.failedOnly && *filter.failedOnly != (r.status >= 400))
            continue;
        if (filter.failedOver && *filter.failedOver != r.failedOver())
            continue;
        out.push_back(r);
    }
    return out;
}

std::optional<RequestRecord> RequestLog::find(const QByteArray &id) const
{
    for (const RequestRecord &r : m_records) {
        if (r.id == id)
            return r;
    }
    return std::nullopt;
}

} // namespace sy::service
