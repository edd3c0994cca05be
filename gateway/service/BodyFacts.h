#pragma once
// BodyFacts: what the gateway reads from a chat request body before it routes it — the routing
// fields, the turns' shape, what the cost estimate and the conversation key are made of. Two
// readers give the same facts: factsOf() from the parsed QJsonObject (every format), and
// scanChatFacts() from the bytes with simdjson (Chat Completions, the hot path: no QJsonObject
// is built). The scan gives up (nullopt) on anything it does not read exactly as Qt's parser
// does — a body Qt would refuse or read otherwise, repeated top-level keys, a `provider` object,
// non-ASCII keys in the leading turns — and the caller then parses with Qt, as before.
// tests/unit/service/BodyFactsTest compares the two readers.
#include "api/Canonical.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace sy::service {

struct BodyFacts {
    // How a member was written: absent, null, or the type the field wants, or something else.
    enum class Kind { Absent, Null, Wanted, Other };

    Kind model = Kind::Absent;           // Wanted: a string
    QString modelText;
    Kind models = Kind::Absent;          // Wanted: an array
    std::vector<std::optional<QString>> modelsItems;   // each item, nullopt when not a string
    bool turnsUsable = false;            // the format's turns member is what checkTurns() wants
    Kind stream = Kind::Absent;          // Wanted: a bool
    bool streamValue = false;
    bool includeUsage = false;           // stream_options.include_usage is true
    QString user;                        // `user` when a string, else empty
    bool hasProvider = false;            // a `provider` member (read with Qt: its errors name fields)
    bool needsVision = false;            // an image part in the turns
    // The cost estimate's prompt size (ExchangeMoney): string contents in UTF-16 units, array
    // contents as Qt writes them compactly; nullopt when the scan left it to the parsed object.
    std::optional<qint64> promptCharacters;
    std::optional<qint64> maxOutputTokens;   // max_completion_tokens, else max_tokens (> 0)
    QByteArray turnsDigest;              // routing::leadingTurnsDigest() of the turns
};

// The member holding the client's turns in `format`.
QLatin1String turnsMember(api::Format format);

// The facts of a parsed body.
BodyFacts factsOf(const QJsonObject &body, api::Format format);
// The prompt size ExchangeMoney estimates from: `system` and every turn's `content`.
qint64 promptCharactersOf(const QJsonObject &body);

// The facts of a Chat Completions body read from its bytes; nullopt: parse it with Qt instead.
std::optional<BodyFacts> scanChatFacts(const QByteArray &raw);

} // namespace sy::service
