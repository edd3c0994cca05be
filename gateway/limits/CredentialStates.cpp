#include "limits/CredentialStates.h"

#include <algorithm>
#include <cmath>

namespace sy::limits {

CredentialStates::CredentialStates(const Clock &clock, std::chrono::seconds demotion)
    : m_clock(clock)
    , m_demotion(demotion)
{
}

const CredentialStates::State *CredentialStates::find(const QString &channelId, int credential) const
{
    if (m_states.isEmpty())
        return nullptr;
    const auto it = m_states.constFind(Key{channelId, credential});
    return it == m_states.cend() ? nullptr : &it.value();
}

void CredentialStates::markRateLimited(const QString &channelId, int credential, std::chrono::milliseconds retryAfter)
{
    m_states[Key{channelId, credential}].rateLimitedUntil = m_clock.now() + retryAfter;
}

void CredentialStates::markDemoted(const QString &channelId, int credential)
{
    m_states[Key{channelId, credential}].demotedUntil = m_clock.now() + m_demotion;
}

void CredentialStates::markSucceeded(const QString &channelId, int credential)
{
    m_states.remove(Key{channelId, credential});
}

bool CredentialStates::isRateLimited(const QString &channelId, int credential) const
{
    const State *state = find(channelId, credential);
    return state && m_clock.now() < state->rateLimitedUntil;
}

Clock::TimePoint CredentialStates::rateLimitedUntil(const QString &channelId, int credential) const
{
    const State *state = find(channelId, credential);
    return state ? state->rateLimitedUntil : Clock::TimePoint{};
}

bool CredentialStates::isDemoted(const QString &channelId, int credential) const
{
    const State *state = find(channelId, credential);
    return state && m_clock.now() < state->demotedUntil;
}

std::vector<int> CredentialStates::attemptOrder(const QString &channelId, int count, std::vector<int> *rateLimited) const
{
    std::vector<int> usable;
    usable.reserve(size_t(std::max(count, 0)));
    if (m_states.isEmpty()) {
        // Nothing learned about any credential: configuration order.
        for (int i = 0; i < count; ++i)
            usable.push_back(i);
        return usable;
    }
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
    // An upstream asking for more than a day is treated as a day: the clock arithmetic stays finite.
    constexpr qint64 kMaxMs = 24LL * 3600 * 1000;
    const QByteArray text = value.trimmed();
    if (text.isEmpty())
        return fallback;
    bool ok = false;
    const double seconds = text.toDouble(&ok);
    if (ok && std::isfinite(seconds) && seconds >= 0)
        return std::chrono::milliseconds(qint64(std::min(seconds * 1000.0, double(kMaxMs))));
    if (text.endsWith(" GMT")) {
        // Qt 6.4's RFC 2822 parser takes "+0000" but not "GMT"; both mean UTC.
        const QDateTime at = QDateTime::fromString(QString::fromLatin1(text.chopped(3) + "+0000"), Qt::RFC2822Date);
        if (at.isValid())
            return std::chrono::milliseconds(std::clamp<qint64>(now.msecsTo(at), 0, kMaxMs));
    }
    return fallback;
}

} // namespace sy::limits
