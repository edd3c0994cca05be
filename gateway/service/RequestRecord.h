#pragma once
// RequestRecord: everything the request log keeps about one request (SPEC §10): who, what was
// asked, who answered, per-phase timings, tokens, cost and the full route trace (every candidate
// considered, every attempt made and why the gateway moved on). No secrets; message contents only
// when the configuration opts in (`content`, kept apart from the record's JSON).
#include "service/AttemptTrace.h"
#include "service/RequestContent.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QStringList>
#include <memory>
#include <vector>

namespace sy::service {

struct FilteredCandidate {
    QString channelId;
    QString modelId;
    QString reason;
};

struct RequestRecord {
    QByteArray id;
    QDateTime at;                  // UTC, when the request arrived
    QString endpoint;              // e.g. "chat.completions"
    QString keyName;               // empty when authentication failed
    QString requestedModel;
    QStringList chain;             // model chain as resolved
    bool stream = false;
    int status = 0;                // HTTP status sent (499: the client went away)
    QString errorMessage;          // for gateway-produced errors
    QString answeringModel;
    QString answeringChannel;      // channel id
    qint64 authMs = 0;
    qint64 queueMs = 0;            // waiting for key limits or channel capacity
    qint64 upstreamMs = 0;         // from the first attempt to the end
    qint64 totalMs = 0;
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 costNanos = 0;          // workspace currency, 1e-9 units
    AttemptTrace attempts;
    QStringList orderNotes;        // how the candidate order was made
    std::vector<FilteredCandidate> filtered;
    QStringList orderedChannels;   // candidate channels in the order they were to be tried
    // Message contents (settings.log_message_content); null when not logged. Not part of toJson()
    // or toJsonBytes() (listings, events, the record column): the request detail adds it.
    std::shared_ptr<const RequestContent> content;
    // The in-memory log let go of `content` (it is in the database): RequestLog sets this.
    bool contentInStoreOnly = false;

    bool failedOver() const;       // more than one attempt, or an attempt that was not ok
    QJsonObject toJson() const;
    // QJsonDocument(toJson()).toJson(Compact), byte for byte, written directly (the request log
    // stores one per request; building the QJsonObject first costs several times more).
    QByteArray toJsonBytes() const;
};

} // namespace sy::service
