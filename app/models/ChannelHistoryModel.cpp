#include "ChannelHistoryModel.h"

#include <QXYSeries>

namespace sy::app {

ChannelHistoryModel::ChannelHistoryModel(QObject *parent)
    : QAbstractListModel(parent)
{
}

QHash<int, QByteArray> ChannelHistoryModel::roleNames() const
{
    return {
        {ChannelIdRole, "channelId"},
        {SampleCountRole, "sampleCount"},
        {RequestsPerSecondRole, "requestsPerSecond"},
        {ErrorsPerSecondRole, "errorsPerSecond"},
        {TokensPerSecondRole, "tokensPerSecond"},
    };
}

int ChannelHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_channels.size());
}

QVariant ChannelHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Channel &c = m_channels[size_t(index.row())];
    const Sample latest = c.samples.empty() ? Sample{} : c.samples.back();
    switch (role) {
    case ChannelIdRole: return c.id;
    case SampleCountRole: return int(c.samples.size());
    case RequestsPerSecondRole: return latest.requests;
    case ErrorsPerSecondRole: return latest.errors;
    case TokensPerSecondRole: return latest.tokens;
    default: return {};
    }
}

QString ChannelHistoryModel::channelId(int row) const
{
    return row >= 0 && row < count() ? m_channels[size_t(row)].id : QString();
}

void ChannelHistoryModel::syncChannels(const service::DashboardSnapshot &snapshot)
{
    // Channels come and go only with a new configuration: append new ones, drop missing ones.
    for (int i = count() - 1; i >= 0; --i) {
        const QString &id = m_channels[size_t(i)].id;
        const bool kept = std::any_of(snapshot.channels.begin(), snapshot.channels.end(),
                                      [&](const service::ChannelTile &t) { return t.id == id; });
        if (!kept) {
            beginRemoveRows({}, i, i);
            m_channels.erase(m_channels.begin() + i);
            endRemoveRows();
            emit countChanged();
        }
    }
    for (const service::ChannelTile &tile : snapshot.channels) {
        const bool known = std::any_of(m_channels.begin(), m_channels.end(),
                                       [&](const Channel &c) { return c.id == tile.id; });
        if (known)
            continue;
        beginInsertRows({}, count(), count());
        Channel channel;
        channel.id = tile.id;
        m_channels.push_back(std::move(channel));
        endInsertRows();
        emit countChanged();
    }
}

void ChannelHistoryModel::recordCounters(const service::DashboardSnapshot &snapshot, qint64 atMs)
{
    for (const service::ChannelTile &tile : snapshot.channels) {
        for (Channel &c : m_channels) {
            if (c.id != tile.id)
                continue;
            c.attempts.add(atMs, tile.attemptsTotal);
            c.errors.add(atMs, tile.errorsTotal);
            c.tokens.add(atMs, tile.completionTokensTotal);
        }
    }
}

void ChannelHistoryModel::addSnapshot(const service::DashboardSnapshot &snapshot)
{
    syncChannels(snapshot);
    const qint64 atMs = snapshot.at.toMSecsSinceEpoch();
    recordCounters(snapshot, atMs);
    if (m_lastSampleMs < 0 || atMs < m_lastSampleMs) {
        m_lastSampleMs = atMs;   // the baseline: rates need two points
        return;
    }
    if (atMs - m_lastSampleMs < 1'000)
        return;
    m_lastSampleMs = atMs;
    for (const service::ChannelTile &tile : snapshot.channels) {
        const auto it = std::find_if(m_channels.begin(), m_channels.end(),
                                     [&](const Channel &c) { return c.id == tile.id; });
        Channel &c = *it;
        const Sample before = c.samples.empty() ? Sample{} : c.samples.back();
        const size_t countBefore = c.samples.size();
        Sample s;
        s.atMs = atMs;
        s.requests = c.attempts.perSecond();
        s.errors = c.errors.perSecond();
        s.tokens = c.tokens.perSecond();
        s.ttftP50 = tile.ttftP50Ms.value_or(-1);
        s.ttftP90 = tile.ttftP90Ms.value_or(-1);
        c.samples.push_back(s);
        while (!c.samples.empty() && atMs - c.samples.front().atMs > qint64(kWindowSeconds) * 1000)
            c.samples.pop_front();
        const int row = int(it - m_channels.begin());
        QList<int> changed;
        if (c.samples.size() != countBefore)
            changed << SampleCountRole;
        if (s.requests != before.requests)
            changed << RequestsPerSecondRole;
        if (s.errors != before.errors)
            changed << ErrorsPerSecondRole;
        if (s.tokens != before.tokens)
            changed << TokensPerSecondRole;
        if (!changed.isEmpty())
            emit dataChanged(index(row), index(row), changed);
    }
    // An idle gateway draws flat lines at zero: once every line is flat, a new sample changes
    // nothing on screen, so the charts are not asked to redraw until there is data again.
    const bool flat = std::all_of(m_channels.begin(), m_channels.end(), [](const Channel &c) {
        return std::all_of(c.samples.begin(), c.samples.end(), [](const Sample &s) {
            return s.requests == 0 && s.errors == 0 && s.tokens == 0 && s.ttftP50 < 0 && s.ttftP90 < 0;
        });
    });
    if (flat && m_flatDrawn)
        return;
    m_flatDrawn = flat;
    emit sampled();
}

double ChannelHistoryModel::valueOf(const Sample &sample, const QString &metric)
{
    if (metric == QLatin1String("requests"))
        return sample.requests;
    if (metric == QLatin1String("errors"))
        return sample.errors;
    if (metric == QLatin1String("tokens"))
        return sample.tokens;
    if (metric == QLatin1String("ttftP50"))
        return sample.ttftP50;
    if (metric == QLatin1String("ttftP90"))
        return sample.ttftP90;
    return -1;
}

QList<QPointF> ChannelHistoryModel::points(int row, const QString &metric) const
{
    QList<QPointF> result;
    if (row < 0 || row >= count() || m_channels[size_t(row)].samples.empty())
        return result;
    const std::deque<Sample> &samples = m_channels[size_t(row)].samples;
    const qint64 newestMs = m_lastSampleMs;
    result.reserve(qsizetype(samples.size()));
    for (const Sample &s : samples) {
        const double y = valueOf(s, metric);
        if (y >= 0)
            result.append(QPointF(double(s.atMs - newestMs) / 1000.0, y));
    }
    return result;
}

void ChannelHistoryModel::fillSeries(QObject *series, int row, const QString &metric) const
{
    if (auto *xy = qobject_cast<QXYSeries *>(series))
        xy->replace(points(row, metric));
}

double ChannelHistoryModel::maxValue(const QString &metric) const
{
    double result = 0;
    for (const Channel &c : m_channels) {
        for (const Sample &s : c.samples)
            result = std::max(result, valueOf(s, metric));
    }
    return result;
}

} // namespace sy::app
