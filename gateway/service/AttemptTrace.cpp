#include "service/AttemptTrace.h"

#include "core/JsonText.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace sy::service {

QJsonArray AttemptTrace::toJson() const
{
    QJsonArray out;
    for (const AttemptRecord &r : m_records) {
        QJsonObject o{{"provider", r.provider}, {"model", r.model}, {"status", r.status}};
        if (r.latencyMs)
            o.insert("latency_ms", double(*r.latencyMs));
        if (!r.error.isEmpty())
            o.insert("error", r.error);
        out.append(o);
    }
    return out;
}

void AttemptTrace::appendJson(QByteArray &out) const
{
    appendJson(out, false);
}

void AttemptTrace::appendJson(QByteArray &out, bool headerSafe) const
{
    // Keys in QJsonObject's (sorted) order: error, latency_ms, model, provider, status.
    const auto string = headerSafe ? json::appendHeaderString : json::appendString;
    json::appendLiteral(out, "[");
    for (size_t i = 0; i < m_records.size(); ++i) {
        const AttemptRecord &r = m_records[i];
        if (i > 0)
            json::appendLiteral(out, ",{");
        else
            json::appendLiteral(out, "{");
        if (!r.error.isEmpty()) {
            json::appendLiteral(out, "\"error\":");
            string(out, r.error);
            json::appendLiteral(out, ",");
        }
        if (r.latencyMs) {
            json::appendLiteral(out, "\"latency_ms\":");
            json::appendNumber(out, double(*r.latencyMs));
            json::appendLiteral(out, ",");
        }
        json::appendLiteral(out, "\"model\":");
        string(out, r.model);
        json::appendLiteral(out, ",\"provider\":");
        string(out, r.provider);
        json::appendLiteral(out, ",\"status\":");
        string(out, r.status);
        json::appendLiteral(out, "}");
    }
    json::appendLiteral(out, "]");
}

QByteArray AttemptTrace::toHeaderValue() const
{
    // Header values must stay on one line and in Latin-1: JSON-escape everything outside ASCII.
    QByteArray out;
    out.reserve(96 * qsizetype(m_records.size()) + 2);
    appendJson(out, true);
    return out;
}

} // namespace sy::service
