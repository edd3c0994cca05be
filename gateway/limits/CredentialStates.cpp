#include "limits/CredentialStates.h"

#include <QLocale>

namespace sy::limits {

CredentialStates::CredentialStates(const Clock &clock, std::chrono::seconds demotion)
    : m_clock(clock)
    , m_demotion(demotion)
{
}

QString CredentialStates::keyOf(const QString &channelId, int credential)
{
    return channelId + QLatin1Char('#') + QString::number(credential);
}

void CredentialStates::markRateLimited(const QString &channelId, int credential, std::chrono::milliseconds retryAfter)
{
    m_states[keyOf(channelId, credential)].rateLimitedUntil = m_clock.now() + retryAfter;
}

void CredentialStates::markDemoted(const QString &channelId, int credential)
{
    m_states[keyOf(channelId, credential)].demotedUntil = m_clock.now() + m_demotion;
}

void CredentialStates::markSucceeded(const QString &channelId, int credential)
{
    m_states.remove(keyOf(channelId, credential));
}

bool CredentialStates::isRateLimited(const QString &channelId, int credential) const
{
    const auto it = m_states.constFind(keyOf(channelId, credential));
    return it != m_states.cend() && m_clock.now() < it->rateLimitedUntil;
}

Clock::TimePoint CredentialStates::rateLimitedUntil(const QString &channelId, int credential) const
{
    return m_states.value(keyOf(channelId, credential)).rateLimitedUntil;
}

bool CredentialStates::isDemoted(const QString &channelId, int credential) const
{
    const auto it = m_states.constFind(keyOf(channelId, credential));
    return it != m_states.cend() && m_clock.now() < it->demotedUntil;
}

std::vector<int> CredentialStates::attemptOrder(const QString &channelId, int count, std::vector<int> *rateLimited) const
{
    std::vector<int> usable;
    std::vector<int> demoted;
    for (int i = 0; i < count; ++i) {
        if (isRateLimited(channelId, i)) {
            if (rateLimited)
                rateLimited->push_back(i);
        } else if (isDemoted(channelId, i)) {
            demoted.push_back(i);
        } else {
            usable.push_back(i);
        }
    }
    usable.insert(usable.end(), demoted.begin(), demoted.end());
    return usable;
}

std::chrono::milliseconds CredentialStates::parseRetryAfter(const QByteArray &value, std::chrono::milliseconds fallback,
                                                            const QDateTime &now)
{
    const QByteArray text = value.trimmed();
    if (text.isEmpty())
        return fallback;
    bool ok = false;
    const double seconds = text.toDouble(&ok);
    if (ok && seconds >= 0)
        return std::chrono::milliseconds(qint64(seconds * 1000));
    const QDateTime at = QLocale::c().toDateTime(QString::fromLatin1(text), QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"));
    if (at.isValid()) {
        QDateTime utc = at;
        utc.setTimeSpec(Qt::UTC);
        const qint64 ms = now.msecsTo(utc);
        return std::chrono::milliseconds(std::max<qint64>(0, ms));
    }
    return fallback;
}

} // namespace sy::limits
