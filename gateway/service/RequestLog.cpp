#include "service/RequestLog.h"

#include <algorithm>

namespace sy::service {

RequestLog::RequestLog(int capacity, QObject *parent)
    : QObject(parent)
    , m_capacity(capacity)
{
}

void RequestLog::setRetention(int maxAgeDays, int maxCount, const QDateTime &nowUtc)
{
    m_maxAgeDays = std::max(0, maxAgeDays);
    m_maxCount = std::max(0, maxCount);
    trim(nowUtc, true);
}

void RequestLog::trim(const QDateTime &nowUtc, bool everyRecord)
{
    const int cap = m_maxCount > 0 ? std::min(m_capacity, m_maxCount) : m_capacity;
    while (int(m_records.size()) > cap)
        m_records.pop_back();
    if (m_maxAgeDays <= 0 || !nowUtc.isValid())
        return;
    const QDateTime cutoff = nowUtc.addDays(-m_maxAgeDays);
    auto expired = [&cutoff](const RequestRecord &r) { return r.at.isValid() && r.at < cutoff; };
    // Records are in finishing order, only roughly by arrival: a bounds change looks at every
    // one; a new request (the hot path) only drops expired records from the old end.
    if (everyRecord)
        std::erase_if(m_records, expired);
    else
        while (!m_records.empty() && expired(m_records.back()))
            m_records.pop_back();
}

void RequestLog::add(RequestRecord record)
{
    const QDateTime arrived = record.at;
    m_records.push_front(std::move(record));
    trim(arrived, false);  // never drops the record just added: it is the newest and not older than itself
    for (std::size_t i = kContentInMemory; i < m_records.size() && m_records[i].content; ++i) {
        m_records[i].content.reset();
        m_records[i].contentInStoreOnly = true;
    }
    emit recorded(m_records.front());
}

std::vector<RequestRecord> RequestLog::query(const RequestFilter &filter) const
{
    // Newest arrival first, like the database (at DESC): records are kept in the order requests
    // finished, and a slow request that arrived earlier finishes after quicker later ones.
    // (record, position in finishing order): ties in arrival keep the finishing order.
    std::vector<std::pair<const RequestRecord *, std::size_t>> matches;
    std::size_t position = 0;
    for (const RequestRecord &r : m_records) {
        ++position;
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
        matches.emplace_back(&r, position);
    }
    // Only the first `limit` need ordering (the dashboard asks four times a second).
    const std::size_t count = std::min(matches.size(), std::size_t(std::max(filter.limit, 0)));
    std::partial_sort(matches.begin(), matches.begin() + qsizetype(count), matches.end(), [](const auto &a, const auto &b) {
        return a.first->at != b.first->at ? a.first->at > b.first->at : a.second < b.second;
    });
    std::vector<RequestRecord> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(*matches[i].first);
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
