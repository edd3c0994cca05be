#pragma once
// CredentialStates: what the gateway has learned about each upstream credential (SPEC §3.6, §4).
//  - rate limited: the upstream answered 429; the credential is skipped until its `retry-after`
//    (default 5 s when the upstream gave none) has passed;
//  - demoted: the upstream answered 401/402/403, the credential's own account is at fault; it is
//    tried after the channel's other credentials for `demotion` (10 min) or until it succeeds.
// Keyed by channel id and the credential's position in the channel's list.
//
// Thread: one thread (the gateway thread). Time from the injected Clock.
#include "core/Clock.h"

#include <QHash>
#include <QString>
#include <vector>

namespace sy::limits {

class CredentialStates {
public:
    explicit CredentialStates(const Clock &clock, std::chrono::seconds demotion = std::chrono::minutes(10));

    void markRateLimited(const QString &channelId, int credential, std::chrono::milliseconds retryAfter);
    void markDemoted(const QString &channelId, int credential);
    void markSucceeded(const QString &channelId, int credential);

    bool isRateLimited(const QString &channelId, int credential) const;
    Clock::TimePoint rateLimitedUntil(const QString &channelId, int credential) const;
    bool isDemoted(const QString &channelId, int credential) const;

    // The credentials of a channel with `count` credentials in the order to try them: usable
    // ones in configuration order, demoted ones after them. Rate-limited ones are left out and
    // listed in `rateLimited` (if given).
    std::vector<int> attemptOrder(const QString &channelId, int count, std::vector<int> *rateLimited = nullptr) const;

    // Parses a `retry-after` header value (seconds, or an HTTP date); `fallback` when absent/invalid.
    static std::chrono::milliseconds parseRetryAfter(const QByteArray &value, std::chrono::milliseconds fallback,
                                                     const QDateTime &now);

private:
    struct State {
        Clock::TimePoint rateLimitedUntil{};
        Clock::TimePoint demotedUntil{};
    };
    // Looked up on every routing decision for every credential of every candidate: a key that
    // refers to the channel's id instead of building a "channel#n" string (an allocation and a
    // number format per lookup).
    struct Key {
        QString channelId;
        int credential = 0;
        friend bool operator==(const Key &, const Key &) = default;
        friend size_t qHash(const Key &key, size_t seed = 0) { return ::qHash(key.channelId, seed) ^ size_t(key.credential); }
    };
    const State *find(const QString &channelId, int credential) const;

    const Clock &m_clock;
    std::chrono::seconds m_demotion;
    QHash<Key, State> m_states;
};

} // namespace sy::limits
