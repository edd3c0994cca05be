#include "service/AttemptTrace.h"

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

QByteArray AttemptTrace::toHeaderValue() const
{
    // Header values must stay on one line and in Latin-1: JSON-escape everything outside ASCII.
    const QByteArray json = QJsonDocument(toJson()).toJson(QJsonDocument::Compact);
    QByteArray out;
    out.reserve(json.size());
    const QString text = QString::fromUtf8(json);
    for (QChar c : text) {
        if (c.unicode() < 0x20 || c.unicode() > 0x7e)
            out += "\\u" + QByteArray::number(c.unicode(), 16).rightJustified(4, '0');
        else
            out += char(c.unicode());
    }
    return out;
}

} // namespace sy::service
