#include "service/RequestRecord.h"

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

} // namespace sy::service
