#pragma once
// SimRule: how the simulator behaves for one (provider, model) target: delays, output length,
// token pace and injected failures. Parsed from the script file and the /_sim/rules control
// endpoint (docs/sim.md describes the JSON). Plain data; any thread.
#include <QJsonObject>
#include <QString>
#include <chrono>
#include <optional>

namespace sy::sim {

enum class FailureKind {
    None,
    Status,         // an HTTP error status with an error body
    Hang,           // accept the request, never answer, keep the socket open
    Reset,          // close the connection before any response header
    DropMidStream,  // headers and part of the body, then close the connection
    Empty200,       // 200 without any choice or content
    MalformedSse,   // an event that is not JSON
    ErrorMidStream, // a stream: some content, then the format's error event (status: its kind)
};

struct Failure {
    FailureKind kind = FailureKind::None;
    int status = 0;  // for FailureKind::Status and ErrorMidStream

    bool operator==(const Failure &) const = default;
};

// Parses "status:429", "hang", "reset", "drop_mid_stream", "empty_200", "malformed_sse",
// "error_mid_stream" (status 500) or "error_mid_stream:529", "none".
std::optional<Failure> parseFailure(QStringView text);
// The inverse of parseFailure(): the stable name used in JSON and in /_sim/stats.
QString failureName(const Failure &failure);

struct SimRule {
    // Empty: any provider. "default" is the provider of the bare /v1/... paths.
    QString provider;
    // Empty: any model.
    QString model;

    std::chrono::milliseconds latency{0};      // before the response headers
    std::chrono::milliseconds timeToFirstToken{0};  // after the headers, before the first content chunk
    double tokensPerSecond = 0;                // pace of the following chunks; 0 = all at once
    int outputTokens = 16;                     // words in a full answer
    double errorRate = 0;                      // probability, 0..1, that `failure` happens
    Failure failure;                           // what happens on a failed draw
    int retryAfterSeconds = 1;                 // `retry-after` of a 429
    int dropAfterChunks = 2;                   // content chunks before drop_mid_stream / error_mid_stream

    // 3 provider+model, 2 model only, 1 provider only, 0 catch-all: the most specific rule wins.
    int specificity() const;
    bool appliesTo(QStringView provider, QStringView model) const;
    bool sameTarget(const SimRule &other) const { return provider == other.provider && model == other.model; }
};

struct RuleParse {
    std::optional<SimRule> rule;
    QString error;  // names the field when rule is empty
};

// Reads one rule object. Unknown keys, wrong types and out-of-range values are errors.
// Defaults: a rule with `failure` and no `error_rate` fails every request (rate 1); a rule with
// `error_rate` and no `failure` fails with status:500.
RuleParse parseRule(const QJsonObject &object);
QJsonObject ruleToJson(const SimRule &rule);

} // namespace sy::sim
