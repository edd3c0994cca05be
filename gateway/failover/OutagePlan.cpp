#include "failover/OutagePlan.h"

#include <algorithm>

namespace sy::failover {

std::optional<Outage> parseOutageKind(const QString &name)
{
    Outage outage;
    if (name.startsWith(QLatin1String("error:"))) {
        bool ok = false;
        outage.status = name.mid(6).toInt(&ok);
        if (!ok || outage.status < 400 || outage.status > 599)
            return std::nullopt;
        outage.kind = OutageKind::HttpError;
    } else if (name == QLatin1String("rate_limit")) {
        outage.kind = OutageKind::HttpError;
        outage.status = 429;
    } else if (name == QLatin1String("timeout")) {
        outage.kind = OutageKind::Timeout;
    } else if (name == QLatin1String("hang")) {
        outage.kind = OutageKind::Hang;
    } else if (name == QLatin1String("drop_mid_stream")) {
        outage.kind = OutageKind::DropMidStream;
    } else if (name == QLatin1String("slow")) {
        outage.kind = OutageKind::Slow;
    } else {
        return std::nullopt;
    }
    return outage;
}

QString describeOutage(const Outage &outage, Clock::TimePoint now)
{
    QString what;
    switch (outage.kind) {
    case OutageKind::HttpError: what = outage.status == 429 ? QStringLiteral("429 rate limit") : QString::number(outage.status); break;
    case OutageKind::Timeout: what = QStringLiteral("timeout"); break;
    case OutageKind::Hang: what = QStringLiteral("hang"); break;
    case OutageKind::DropMidStream: what = QStringLiteral("drop mid-stream"); break;
    case OutageKind::Slow: what = QStringLiteral("slow +%1 ms").arg(outage.extraLatency.count()); break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::seconds>(outage.until - now).count();
    return QStringLiteral("%1 for %2 s").arg(what).arg(std::max<qint64>(0, left));
}

quint64 OutagePlan::set(Outage outage)
{
    std::erase_if(m_outages, [&](const Outage &o) {
        return o.channelId == outage.channelId && o.modelId == outage.modelId;
    });
    outage.id = m_nextId++;
    m_outages.push_back(outage);
    return outage.id;
}

bool OutagePlan::remove(quint64 id)
{
    return std::erase_if(m_outages, [id](const Outage &o) { return o.id == id; }) > 0;
}

void OutagePlan::clear()
{
    m_outages.clear();
}

std::optional<Outage> OutagePlan::match(const QString &channelId, const QString &modelId) const
{
    const auto now = m_clock.now();
    std::optional<Outage> byModel;
    for (const Outage &o : m_outages) {
        if (now >= o.until)
            continue;
        if (!o.channelId.isEmpty() && o.channelId == channelId)
            return o;
        if (!o.modelId.isEmpty() && o.modelId == modelId)
            byModel = o;
    }
    return byModel;
}

std::vector<Outage> OutagePlan::active() const
{
    const auto now = m_clock.now();
    std::vector<Outage> out;
    std::copy_if(m_outages.begin(), m_outages.end(), std::back_inserter(out), [now](const Outage &o) { return now < o.until; });
    return out;
}

} // namespace sy::failover
