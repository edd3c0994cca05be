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
// The same from leadingTurnsDigest(messages), for a caller that read the turns without Qt
// (service/BodyFacts); `turnsDigest` is only read when there is neither a session id nor a user.
QByteArray conversationKeyFromDigest(const QString &keyName, const QString &model, const QByteArray &sessionId,
                                     const QString &user, const QByteArray &turnsDigest);
// What a conversation is recognised by when the client names none: a hash of its turns up to and
// including the first user message (every later turn repeats that opening). Fed by structure:
// per value a type tag (QJsonValue::Type), then strings as their UTF-16 length and units,
// numbers as the bits of their double (-0 as 0, as Qt's parser stores it), containers with their
// size, objects in QJsonObject's key order (sorted, a repeated key once with its last value).
QByteArray leadingTurnsDigest(const QJsonArray &messages);

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
