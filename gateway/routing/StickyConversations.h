#pragma once
// StickyConversations: remembers which channel served a conversation, so its next turn prefers
// the same channel (upstream prompt caches, consistent behaviour) while that channel is healthy
// (SPEC §3.5). A conversation is identified by conversationKey(): the gateway key plus the
// client's session id, or `user`, or the leading messages up to the first user message.
//
// Bounded: entries expire after `ttl` and the map never holds more than `capacity` entries.
// Thread: one thread (the gateway thread).
#include "core/Clock.h"

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QString>

namespace sy::routing {

// Stable key of the conversation a request continues. `sessionId` is the x-session-id header.
QByteArray conversationKey(const QString &keyName, const QString &model, const QByteArray &sessionId,
                           const QString &user, const QJsonArray &messages);

class StickyConversations {
public:
    explicit StickyConversations(const Clock &clock, std::chrono::seconds ttl = std::chrono::hours(1),
                                 int capacity = 50'000);

    // The channel that last served `conversation`, or empty.
    QString channelFor(const QByteArray &conversation) const;
    void remember(const QByteArray &conversation, const QString &channelId);
    int size() const { return int(m_entries.size()); }

private:
    struct Entry {
        QString channelId;
        Clock::TimePoint lastUsed;
    };
    void evict(const QByteArray &justRemembered);

    const Clock &m_clock;
    std::chrono::seconds m_ttl;
    int m_capacity;
    QHash<QByteArray, Entry> m_entries;
};

} // namespace sy::routing
