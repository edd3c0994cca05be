#include "service/RequestRecord.h"

#include "core/JsonText.h"

#include <QJsonArray>

namespace sy::service {

bool RequestRecord::failedOver() const
{
    const auto &records = attempts.records();
    if (records.size() > 1)
        return true;
    return !records.empty() && records.front().status != QLatin1String("ok");
}

QJsonObject RequestRecord::toJson() const
{
    QJsonArray filteredJson;
    for (const FilteredCandidate &f : filtered)
        filteredJson.append(QJsonObject{{"channel", f.channelId}, {"model", f.modelId}, {"reason", f.reason}});
    return QJsonObject{
        {"id", QString::fromLatin1(id)},
        {"at", at.toString(Qt::ISODateWithMs)},
        {"endpoint", endpoint},
        {"key", keyName},
        {"requested_model", requestedModel},
        {"chain", QJsonArray::fromStringList(chain)},
        {"stream", stream},
        {"status", status},
        {"error", errorMessage},
        {"model", answeringModel},
        {"channel", answeringChannel},
        {"timings_ms", QJsonObject{{"auth", double(authMs)}, {"queue", double(queueMs)},
                                   {"upstream", double(upstreamMs)}, {"total", double(totalMs)}}},
        {"tokens", QJsonObject{{"prompt", double(promptTokens)}, {"completion", double(completionTokens)}}},
        {"cost", double(costNanos) / 1e9},
        {"failed_over", failedOver()},
        {"route", QJsonObject{{"order", QJsonArray::fromStringList(orderedChannels)},
                              {"notes", QJsonArray::fromStringList(orderNotes)},
                              {"filtered", filteredJson},
                              {"attempts", attempts.toJson()}}},
    };
}

namespace {

using json::appendLiteral;

void appendStrings(QByteArray &out, const QStringList &list)
{
    appendLiteral(out, "[");
    for (qsizetype i = 0; i < list.size(); ++i) {
        if (i > 0)
            appendLiteral(out, ",");
        json::appendString(out, list.at(i));
    }
    appendLiteral(out, "]");
}

} // namespace

QByteArray RequestRecord::toJsonBytes() const
{
    // Keys in the order QJsonObject keeps them (sorted), as toJson() + QJsonDocument writes them;
    // the fixed text between two values is appended in one piece.
    QByteArray out;
    out.reserve(1024);
    appendLiteral(out, "{\"at\":");
    json::appendIsoDateWithMs(out, at);
    appendLiteral(out, ",\"chain\":");
    appendStrings(out, chain);
    appendLiteral(out, ",\"channel\":");
    json::appendString(out, answeringChannel);
    appendLiteral(out, ",\"cost\":");
    json::appendNumber(out, double(costNanos) / 1e9);
    appendLiteral(out, ",\"endpoint\":");
    json::appendString(out, endpoint);
    appendLiteral(out, ",\"error\":");
    json::appendString(out, errorMessage);
    if (failedOver())
        appendLiteral(out, ",\"failed_over\":true,\"id\":");
    else
        appendLiteral(out, ",\"failed_over\":false,\"id\":");
    json::appendString(out, QString::fromLatin1(id));
    appendLiteral(out, ",\"key\":");
    json::appendString(out, keyName);
    appendLiteral(out, ",\"model\":");
    json::appendString(out, answeringModel);
    appendLiteral(out, ",\"requested_model\":");
    json::appendString(out, requestedModel);
    appendLiteral(out, ",\"route\":{\"attempts\":");
    attempts.appendJson(out);
    appendLiteral(out, ",\"filtered\":[");
    for (size_t i = 0; i < filtered.size(); ++i) {
        if (i > 0)
            appendLiteral(out, ",{\"channel\":");
        else
            appendLiteral(out, "{\"channel\":");
        json::appendString(out, filtered[i].channelId);
        appendLiteral(out, ",\"model\":");
        json::appendString(out, filtered[i].modelId);
        appendLiteral(out, ",\"reason\":");
        json::appendString(out, filtered[i].reason);
        appendLiteral(out, "}");
    }
    appendLiteral(out, "],\"notes\":");
    appendStrings(out, orderNotes);
    appendLiteral(out, ",\"order\":");
    appendStrings(out, orderedChannels);
    appendLiteral(out, "},\"status\":");
    json::appendNumber(out, double(status));
    if (stream)
        appendLiteral(out, ",\"stream\":true,\"timings_ms\":{\"auth\":");
    else
        appendLiteral(out, ",\"stream\":false,\"timings_ms\":{\"auth\":");
    json::appendNumber(out, double(authMs));
    appendLiteral(out, ",\"queue\":");
    json::appendNumber(out, double(queueMs));
    appendLiteral(out, ",\"total\":");
    json::appendNumber(out, double(totalMs));
    appendLiteral(out, ",\"upstream\":");
    json::appendNumber(out, double(upstreamMs));
    appendLiteral(out, "},\"tokens\":{\"completion\":");
    json::appendNumber(out, double(completionTokens));
    appendLiteral(out, ",\"prompt\":");
    json::appendNumber(out, double(promptTokens));
    appendLiteral(out, "}}");
    return out;
}

} // namespace sy::service
