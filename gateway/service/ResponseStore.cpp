#include "service/ResponseStore.h"

#include "service/ChatRequest.h"

namespace sy::service {

void ResponseStore::setRetention(int maxAgeDays, int maxCount)
{
    m_maxAgeDays = maxAgeDays;
    m_maxCount = maxCount;
}

void ResponseStore::setMaxBytes(qint64 maxBytes)
{
    m_maxBytes = maxBytes;
}

namespace {

// One heap block: its header and the allocator's own overhead, about 32 bytes.
constexpr qint64 kBlock = 32;

qint64 textBytes(const QString &text)
{
    return text.isEmpty() ? 0 : kBlock + text.size() * qint64(sizeof(QChar));
}

qint64 bytesBytes(const QByteArray &bytes)
{
    return bytes.isEmpty() ? 0 : kBlock + bytes.size();
}

qint64 partsBytes(const QList<api::ContentPart> &parts)
{
    if (parts.isEmpty())
        return 0;
    qint64 bytes = kBlock + parts.size() * qint64(sizeof(api::ContentPart));
    for (const api::ContentPart &part : parts) {
        for (const QString *text : {&part.text, &part.signature, &part.imageUrl, &part.mediaType, &part.toolCallId, &part.toolName})
            bytes += textBytes(*text);
        bytes += bytesBytes(part.base64Data) + bytesBytes(part.argumentsJson) + partsBytes(part.resultParts);
    }
    return bytes;
}

} // namespace

qint64 ResponseStore::entryBytes(const QString &id, const Entry &entry)
{
    // The hash node (key and entry) and the id's copy in the order.
    qint64 bytes = kBlock + qint64(sizeof(QString) + sizeof(Entry)) + 2 * textBytes(id) + qint64(sizeof(QString));
    bytes += textBytes(entry.keyName) + textBytes(entry.previousId) + kBlock;   // kBlock: the QDateTime
    if (!entry.turns.isEmpty())
        bytes += kBlock + entry.turns.size() * qint64(sizeof(api::Message));
    for (const api::Message &message : entry.turns)
        bytes += partsBytes(message.parts);
    return bytes;
}

bool ResponseStore::expired(const Entry &entry, const QDateTime &now) const
{
    return m_maxAgeDays > 0 && entry.at.addDays(m_maxAgeDays) < now;
}

void ResponseStore::prune(const QDateTime &now)
{
    while (!m_order.empty()) {
        const auto it = m_entries.constFind(m_order.front());
        const bool drop = it == m_entries.cend() || expired(*it, now)
            || (m_maxCount > 0 && m_entries.size() > m_maxCount) || (m_maxBytes > 0 && m_bytes > m_maxBytes && m_entries.size() > 1);   // the newest stays
        if (!drop)
            return;
        if (it != m_entries.cend()) {
            m_bytes -= entryBytes(it.key(), *it);
            m_entries.erase(it);
        }
        m_order.pop_front();
    }
}

void ResponseStore::put(const QString &id, Entry entry, const QDateTime &now)
{
    entry.at = now;
    if (const auto it = m_entries.constFind(id); it != m_entries.cend())
        m_bytes -= entryBytes(id, *it);
    else
        m_order.push_back(id);
    m_bytes += entryBytes(id, entry);
    m_entries.insert(id, std::move(entry));
    prune(now);
}

std::optional<QList<api::Message>> ResponseStore::conversation(const QString &id, const QString &keyName,
                                                               const QDateTime &now) const
{
    std::vector<const Entry *> chain;
    QString next = id;
    while (!next.isEmpty()) {
        const auto it = m_entries.constFind(next);
        // A missing link (expired or trimmed) loses the conversation: a partial one would mislead.
        if (it == m_entries.cend() || it->keyName != keyName || expired(*it, now))
            return std::nullopt;
        chain.push_back(&*it);
        next = it->previousId;
        if (chain.size() > size_t(m_entries.size()))
            return std::nullopt;   // ids are fresh per request, so this only guards a corrupt chain
    }
    QList<api::Message> turns;
    for (auto entry = chain.rbegin(); entry != chain.rend(); ++entry)
        turns += (*entry)->turns;
    return turns;
}

std::optional<ErrorReply> continueResponse(ChatRequest &chat, ResponseStore &store, const QString &keyName,
                                           const QString &responseId, const Clock &clock)
{
    if (!chat.canonical)
        return std::nullopt;
    const QString previousId = chat.canonical->previousResponseId;
    const QList<api::Message> ownTurns = chat.canonical->messages;
    if (!previousId.isEmpty()) {
        std::optional<QList<api::Message>> earlier = store.conversation(previousId, keyName, clock.wallNow());
        if (!earlier)
            return ErrorReply{400, QStringLiteral("Previous response with id '%1' not found.").arg(previousId),
                              "previous_response_not_found", "previous_response_id"};
        auto continued = std::make_shared<api::CanonicalRequest>(*chat.canonical);
        continued->messages = *earlier + ownTurns;
        chat.canonical = std::move(continued);
    }
    if (!chat.canonical->store)
        return std::nullopt;
    chat.onAnswer = [&store, &clock, keyName, previousId, ownTurns, responseId](const api::CanonicalAnswer &answer) {
        ResponseStore::Entry entry{keyName, previousId, ownTurns, {}};
        api::Message reply;
        reply.role = api::Role::Assistant;
        reply.parts = answer.parts;
        entry.turns.append(reply);
        store.put(responseId, std::move(entry), clock.wallNow());
    };
    return std::nullopt;
}

} // namespace sy::service
