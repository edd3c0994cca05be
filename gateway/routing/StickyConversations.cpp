#include "routing/StickyConversations.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <vector>

namespace sy::routing {

QByteArray conversationKey(const QString &keyName, const QString &model, const QByteArray &sessionId,
                           const QString &user, const QJsonArray &messages)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(keyName.toUtf8());
    hash.addData(QByteArrayView("\x1f", 1));
    hash.addData(model.toUtf8());
    hash.addData(QByteArrayView("\x1f", 1));
    if (!sessionId.isEmpty()) {
        hash.addData("session:");
        hash.addData(sessionId);
    } else if (!user.isEmpty()) {
        hash.addData("user:");
        hash.addData(user.toUtf8());
    } else {
        // Every later turn of a conversation repeats its opening up to the first user message.
        QJsonArray leading;
        for (const QJsonValue &message : messages) {
            leading.append(message);
            if (message.toObject().value("role").toString() == QLatin1String("user"))
                break;
        }
        hash.addData("messages:");
        hash.addData(QJsonDocument(leading).toJson(QJsonDocument::Compact));
    }
    return hash.result();
}

StickyConversations::StickyConversations(const Clock &clock, std::chrono::seconds ttl, int capacity)
    : m_clock(clock)
    , m_ttl(ttl)
    , m_capacity(capacity)
{
}

QString StickyConversations::channelFor(const QByteArray &conversation) const
{
    const auto it = m_entries.constFind(conversation);
    if (it == m_entries.cend() || m_clock.now() - it->lastUsed > m_ttl)
        return {};
    return it->channelId;
}

void StickyConversations::remember(const QByteArray &conversation, const QString &channelId)
{
    m_entries.insert(conversation, {channelId, m_clock.now()});
    if (m_entries.size() > m_capacity)
        evict(conversation);
}

void StickyConversations::evict(const QByteArray &justRemembered)
{
    // Drop expired entries, then the least recently used until half the capacity is left; the
    // entry just remembered always stays.
    const auto now = m_clock.now();
    m_entries.removeIf([&](const auto &it) { return now - it.value().lastUsed > m_ttl; });
    if (m_entries.size() <= m_capacity)
        return;
    std::vector<std::pair<Clock::TimePoint, QByteArray>> byAge;
    byAge.reserve(m_entries.size());
    for (auto it = m_entries.cbegin(); it != m_entries.cend(); ++it) {
        if (it.key() != justRemembered)
            byAge.emplace_back(it.value().lastUsed, it.key());
    }
    const qsizetype drop = m_entries.size() - std::max(1, m_capacity / 2);
    if (drop <= 0)
        return;
    const auto cut = byAge.begin() + std::min<qsizetype>(drop, qsizetype(byAge.size()));
    std::nth_element(byAge.begin(), cut, byAge.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    for (auto it = byAge.begin(); it != cut; ++it)
        m_entries.remove(it->second);
}

} // namespace sy::routing
