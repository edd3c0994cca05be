#include "routing/StickyConversations.h"

#include "core/FastHash.h"

#include <QJsonObject>
#include <algorithm>
#include <vector>

namespace sy::routing {

namespace {

// Feeds a JSON value to the hash by its structure, not by a serialisation (leadingTurnsDigest()
// in the header says how; service/BodyFactsScan feeds the same bytes from simdjson's values).
// Objects in key order: QJsonObject keeps keys sorted, so the order fields were sent in does not
// matter.
void addJson(FastHash128 &hash, const QJsonValue &value)
{
    const auto addString = [&hash](const QString &text) {
        hash.addValue(qint64(text.size()));
        hash.add(text.constData(), std::size_t(text.size()) * sizeof(QChar));
    };
    hash.addValue(quint8(value.type()));
    switch (value.type()) {
    case QJsonValue::Bool:
        hash.addValue(quint8(value.toBool()));
        break;
    case QJsonValue::Double: {
        const double number = value.toDouble();
        hash.addValue(number == 0 ? 0.0 : number);   // -0 as 0: Qt's parser reads "-0.0" as 0
        break;
    }
    case QJsonValue::String:
        addString(value.toString());
        break;
    case QJsonValue::Array: {
        const QJsonArray array = value.toArray();
        hash.addValue(qint64(array.size()));
        for (const QJsonValue &item : array)
            addJson(hash, item);
        break;
    }
    case QJsonValue::Object: {
        const QJsonObject object = value.toObject();
        hash.addValue(qint64(object.size()));
        for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
            addString(it.key());
            addJson(hash, it.value());
        }
        break;
    }
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        break;
    }
}

} // namespace

QByteArray leadingTurnsDigest(const QJsonArray &messages)
{
    FastHash128 hash;
    for (const QJsonValue &message : messages) {
        addJson(hash, message);
        if (message.toObject().value(QLatin1String("role")).toString() == QLatin1String("user"))
            break;
    }
    return hash.result();
}

QByteArray conversationKey(const QString &keyName, const QString &model, const QByteArray &sessionId,
                           const QString &user, const QJsonArray &messages)
{
    const bool byTurns = sessionId.isEmpty() && user.isEmpty();
    return conversationKeyFromDigest(keyName, model, sessionId, user, byTurns ? leadingTurnsDigest(messages) : QByteArray());
}

QByteArray conversationKeyFromDigest(const QString &keyName, const QString &model, const QByteArray &sessionId,
                                     const QString &user, const QByteArray &turnsDigest)
{
    // A fast non-cryptographic hash: the key only has to tell conversations apart, and a
    // collision costs at most a channel preference. Each part is length-prefixed, so no two
    // different inputs feed the same bytes.
    FastHash128 hash;
    const auto addText = [&hash](const QString &text) {
        hash.addValue(qint64(text.size()));
        hash.add(text.constData(), std::size_t(text.size()) * sizeof(QChar));
    };
    addText(keyName);
    addText(model);
    if (!sessionId.isEmpty()) {
        hash.addValue('s');
        hash.addValue(qint64(sessionId.size()));
        hash.add(sessionId);
    } else if (!user.isEmpty()) {
        hash.addValue('u');
        addText(user);
    } else {
        // Every later turn of a conversation repeats its opening up to the first user message.
        hash.addValue('m');
        hash.add(turnsDigest);
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
