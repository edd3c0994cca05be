#pragma once
// Shared doubles and builders for the routing tests: a HealthView the test sets directly, a
// Random that replays given values, channel builders, and a fixture that owns a real
// MetricsWindow on a FakeClock so metrics come from recorded samples.
#include "QtPrinters.h"
#include "support/FakeClock.h"
#include "routing/ChannelSelector.h"

#include <gtest/gtest.h>

#include <QHash>
#include <QSet>
#include <deque>

namespace sy::routing::test {

class FakeHealth final : public HealthView {
public:
    QSet<QString> failed;
    QSet<QString> cooling;
    QHash<QString, double> factors;   // channel id → factor; 1 when absent

    bool failedRecently(const QString &channelId) const override { return failed.contains(channelId); }
    bool isCoolingDown(const QString &channelId) const override { return cooling.contains(channelId); }
    double healthFactor(const QString &channelId, const QString &) const override
    {
        return factors.value(channelId, 1.0);
    }
};

// Replays `values`, then returns 0 forever. With 0 every weighted draw takes the first remaining
// channel, so the default order equals configuration order (tests of non-random rules use it).
class ScriptedRandom final : public Random {
public:
    std::deque<double> values;
    double uniform() override
    {
        if (values.empty())
            return 0.0;
        const double value = values.front();
        values.pop_front();
        return value;
    }
};

inline const QString kModel = QStringLiteral("deepseek/deepseek-v4-flash");
inline const QString kFallback = QStringLiteral("qwen/qwen3");

// A standard-tier channel serving `models` at price prompt = completion = price / 2, so the
// total (prompt + completion) price is `price`.
inline config::Channel makeChannel(const QString &id, const QString &provider, double price = 1.0,
                                   const QStringList &models = {kModel})
{
    config::Channel channel;
    channel.id = id;
    channel.provider = provider;
    for (const QString &model : models)
        channel.models.push_back(config::ChannelModel{model, model, config::Price{price / 2, price / 2}});
    return channel;
}

class RoutingTest : public ::testing::Test {
protected:
    sy::test::FakeClock clock;
    metrics::MetricsWindow metrics{clock};
    FakeHealth health;
    ScriptedRandom random;
    ChannelSelector selector{metrics, health, random};
    std::vector<config::Channel> channels;

    config::Channel &add(const QString &id, const QString &provider, double price = 1.0,
                         const QStringList &models = {kModel})
    {
        channels.push_back(makeChannel(id, provider, price, models));
        return channels.back();
    }

    static SelectionRequest requestFor(const QStringList &chain = {kModel}, ProviderPreferences prefs = {})
    {
        SelectionRequest request;
        request.chain = chain;
        request.preferences = std::move(prefs);
        return request;
    }

    Selection select(const SelectionRequest &request) { return selector.select(channels, request); }

    static QStringList orderedIds(const Selection &selection)
    {
        QStringList ids;
        for (const Candidate &candidate : selection.ordered)
            ids.append(candidate.channel->id + QLatin1Char('@') + candidate.modelId);
        return ids;
    }

    // Ordered channel ids when all candidates serve one model.
    static QStringList channelIds(const Selection &selection)
    {
        QStringList ids;
        for (const Candidate &candidate : selection.ordered)
            ids.append(candidate.channel->id);
        return ids;
    }

    static QString reasonFor(const Selection &selection, const QString &channelId, const QString &modelId = kModel)
    {
        for (const FilteredChannel &filtered : selection.filtered) {
            if (filtered.channelId == channelId && filtered.modelId == modelId)
                return filtered.reason;
        }
        return QString();
    }

    // One successful attempt with these measures (a single sample makes every percentile equal it).
    void recordSample(const QString &channelId, const QString &modelId, std::optional<double> tokensPerSecond,
                      std::optional<int> ttftMs)
    {
        const metrics::ChannelModel key{channelId, modelId};
        metrics::AttemptSample sample;
        sample.success = true;
        if (ttftMs)
            sample.timeToFirstToken = std::chrono::milliseconds(*ttftMs);
        sample.totalLatency = std::chrono::milliseconds(ttftMs.value_or(0) + 500);
        sample.tokensPerSecond = tokensPerSecond;
        metrics.recordStart(key);
        metrics.recordFinish(key, sample);
    }
    void recordThroughput(const QString &channelId, double tokensPerSecond, const QString &modelId = kModel)
    {
        recordSample(channelId, modelId, tokensPerSecond, std::nullopt);
    }
    void recordTtft(const QString &channelId, int ttftMs, const QString &modelId = kModel)
    {
        recordSample(channelId, modelId, std::nullopt, ttftMs);
    }
};

} // namespace sy::routing::test
