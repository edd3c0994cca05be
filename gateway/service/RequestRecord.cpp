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

void appendStrings(QByteArray &out, const QStringList &list)
{
    out += '[';
    for (qsizetype i = 0; i < list.size(); ++i) {
        if (i > 0)
            out += ',';
        json::appendString(out, list.at(i));
    }
    out += ']';
}

void appendKey(QByteArray &out, const char *key)
{
    out += ",\"";
    out += key;
    out += "\":";
}

} // namespace

QByteArray RequestRecord::toJsonBytes() const
{
    // Keys in the order QJsonObject keeps them (sorted), as toJson() + QJsonDocument writes them.
    QByteArray out;
    out.reserve(1024);
    out += "{\"at\":";
    json::appendIsoDateWithMs(out, at);
    appendKey(out, "chain");
    appendStrings(out, chain);
    appendKey(out, "channel");
    json::appendString(out, answeringChannel);
    appendKey(out, "cost");
    json::appendNumber(out, double(costNanos) / 1e9);
    appendKey(out, "endpoint");
    json::appendString(out, endpoint);
    appendKey(out, "error");
    json::appendString(out, errorMessage);
    appendKey(out, "failed_over");
    json::appendBool(out, failedOver());
    appendKey(out, "id");
    json::appendString(out, QString::fromLatin1(id));
    appendKey(out, "key");
    json::appendString(out, keyName);
    appendKey(out, "model");
    json::appendString(out, answeringModel);
    appendKey(out, "requested_model");
    json::appendString(out, requestedModel);
    appendKey(out, "route");
    out += "{\"attempts\":";
    attempts.appendJson(out);
    out += ",\"filtered\":[";
    for (size_t i = 0; i < filtered.size(); ++i) {
        if (i > 0)
            out += ',';
        out += "{\"channel\":";
        json::appendString(out, filtered[i].channelId);
        out += ",\"model\":";
        json::appendString(out, filtered[i].modelId);
        out += ",\"reason\":";
        json::appendString(out, filtered[i].reason);
        out += '}';
    }
    out += "],\"notes\":";
    appendStrings(out, orderNotes);
    out += ",\"order\":";
    appendStrings(out, orderedChannels);
    out += '}';
    appendKey(out, "status");
    out += QByteArray::number(status);
    appendKey(out, "stream");
    json::appendBool(out, stream);
    appendKey(out, "timings_ms");
    out += "{\"auth\":";
    json::appendNumber(out, double(authMs));
    out += ",\"queue\":";
    json::appendNumber(out, double(queueMs));
    out += ",\"total\":";
    json::appendNumber(out, double(totalMs));
    out += ",\"upstream\":";
    json::appendNumber(out, double(upstreamMs));
    out += '}';
    appendKey(out, "tokens");
    out += "{\"completion\":";
    json::appendNumber(out, double(completionTokens));
    out += ",\"prompt\":";
    json::appendNumber(out, double(promptTokens));
    out += "}}";
    return out;
}

} // namespace sy::service
