#pragma once
// ResponseStore: the OpenAI Responses answers this gateway gave, so a later request can continue
// one with `previous_response_id` (docs/formats-responses.md). An entry holds the turns its own
// request added, the answer, and the id it continued; a conversation is resolved by walking back.
// Entries live in memory under the request log's retention (age and count) and are gone after a
// restart: continuing an unknown, expired or another key's response is a 400
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

    // 0 (or less) turns a bound off.
    void setRetention(int maxAgeDays, int maxCount);
    void put(const QString &id, Entry entry, const QDateTime &now);
    // Every turn up to and including the answer of `id`, oldest first; nullopt when the store has
    // no such response for `keyName` (never stored, expired, or another key's).
    std::optional<QList<api::Message>> conversation(const QString &id, const QString &keyName, const QDateTime &now) const;
    qsizetype size() const { return m_entries.size(); }

private:
    void prune(const QDateTime &now);
    bool expired(const Entry &entry, const QDateTime &now) const;

    QHash<QString, Entry> m_entries;
    std::deque<QString> m_order;         // ids, oldest first
    int m_maxAgeDays = 30;
    int m_maxCount = 100'000;
};

// For a Responses request of `keyName`: puts the turns of its previous_response_id before its own
// (a 400 naming previous_response_id when unknown) and, unless `store` is false, makes the
// request store its answer under `responseId` once it ended cleanly.
std::optional<ErrorReply> continueResponse(ChatRequest &chat, ResponseStore &store, const QString &keyName,
                                           const QString &responseId, const Clock &clock);

} // namespace sy::service
