#pragma once
// ResponseStore: the OpenAI Responses answers this gateway gave, so a later request can continue
// one with `previous_response_id` (docs/formats-responses.md). An entry holds the turns its own
// request added, the answer, and the id it continued; a conversation is resolved by walking back.
// Entries live in memory under the request log's retention (age and count) and under a memory
// budget (the oldest go first once the stored turns exceed it), and are gone after a restart:
// continuing an unknown, expired, evicted or another key's response is a 400
// `previous_response_not_found`.
//
// Thread: the gateway thread.
#include "api/Canonical.h"
#include "core/Clock.h"
#include "service/ErrorReply.h"

#include <QDateTime>
#include <QHash>
#include <deque>
#include <optional>

namespace sy::service {

struct ChatRequest;

class ResponseStore {
public:
    struct Entry {
        QString keyName;
        QString previousId;              // the response this one continued; empty for a first one
        QList<api::Message> turns;       // this request's own turns, then the answer
        QDateTime at;
    };

    // What the store may hold by default: every answer of a busy gateway is an entry, so the
    // count bound alone (the request log's, 100,000 by default) let it reach hundreds of MiB.
    static constexpr qint64 kDefaultMaxBytes = 32 * 1024 * 1024;

    // 0 (or less) turns a bound off.
    void setRetention(int maxAgeDays, int maxCount);
    // The memory budget in bytes (estimated, see entryBytes); 0 (or less) turns it off. The
    // newest entry is kept even when it alone is over the budget.
    void setMaxBytes(qint64 maxBytes);
    void put(const QString &id, Entry entry, const QDateTime &now);
    // Every turn up to and including the answer of `id`, oldest first; nullopt when the store has
    // no such response for `keyName` (never stored, expired, or another key's).
    std::optional<QList<api::Message>> conversation(const QString &id, const QString &keyName, const QDateTime &now) const;
    qsizetype size() const { return m_entries.size(); }
    // The estimated bytes the entries hold now.
    qint64 bytes() const { return m_bytes; }

    // What an entry is counted for: its strings and parts as allocated, plus the bookkeeping
    // of one hash node and one order slot.
    static qint64 entryBytes(const QString &id, const Entry &entry);

private:
    void prune(const QDateTime &now);
    bool expired(const Entry &entry, const QDateTime &now) const;

    QHash<QString, Entry> m_entries;
    std::deque<QString> m_order;         // ids, oldest first
    int m_maxAgeDays = 30;
    int m_maxCount = 100'000;
    qint64 m_maxBytes = kDefaultMaxBytes;
    qint64 m_bytes = 0;                  // sum of entryBytes() over m_entries
};

// For a Responses request of `keyName`: puts the turns of its previous_response_id before its own
// (a 400 naming previous_response_id when unknown) and, unless `store` is false, makes the
// request store its answer under `responseId` once it ended cleanly.
std::optional<ErrorReply> continueResponse(ChatRequest &chat, ResponseStore &store, const QString &keyName,
                                           const QString &responseId, const Clock &clock);

} // namespace sy::service
