#include "FeedModel.h"

namespace sy::app {

FeedModel::FeedModel(QObject *parent)
    : KeyedRowsModel(parent)
{
}

QHash<int, QByteArray> FeedModel::roleNames() const
{
    return {
        {RequestIdRole, "requestId"},
        {TimeRole, "time"},
        {ModelRole, "modelId"},
        {SummaryRole, "summary"},
        {StatusRole, "status"},
        {FailedOverRole, "failedOver"},
    };
}

QVariant FeedModel::value(const service::FeedEvent &row, int role) const
{
    switch (role) {
    case RequestIdRole: return QString::fromLatin1(row.requestId);
    case TimeRole: return row.at.toLocalTime().toString(QStringLiteral("HH:mm:ss"));
    case ModelRole: return row.model;
    case SummaryRole: return row.summary;
    case StatusRole: return row.status;
    case FailedOverRole: return row.failedOver;
    default: return {};
    }
}

void FeedModel::apply(const service::DashboardSnapshot &snapshot)
{
    // The snapshot carries only the latest requests; the feed keeps failovers visible longer by
    // accumulating the events it has not seen yet, newest first.
    QSet<QByteArray> seen;
    for (const service::FeedEvent &event : m_all)
        seen.insert(event.requestId);
    std::vector<service::FeedEvent> fresh;
    for (const service::FeedEvent &event : snapshot.feed) {
        if (!seen.contains(event.requestId))
            fresh.push_back(event);
    }
    if (fresh.empty())
        return;
    m_all.insert(m_all.begin(), fresh.begin(), fresh.end());
    // Failovers and errors stay listed however busy the gateway is: the plain requests (shown
    // only with "All requests") are what is forgotten first.
    std::vector<service::FeedEvent> kept;
    int plain = 0;
    int notable = 0;
    for (service::FeedEvent &event : m_all) {
        if (isNotable(event) ? notable++ < kShown : plain++ < kKept)
            kept.push_back(std::move(event));
    }
    m_all = std::move(kept);
    refilter();
}

void FeedModel::setShowAll(bool showAll)
{
    if (m_showAll == showAll)
        return;
    m_showAll = showAll;
    emit showAllChanged();
    refilter();
}

void FeedModel::refilter()
{
    std::vector<service::FeedEvent> shown;
    for (const service::FeedEvent &event : m_all) {
        if (m_showAll || isNotable(event))
            shown.push_back(event);
        if (int(shown.size()) == kShown)
            break;
    }
    sync(std::move(shown));
}

} // namespace sy::app
