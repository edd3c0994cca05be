// switchyard-routing-bench: the cost of one routing decision (SPEC §3: chain, filters, order,
// credential expansion) on a large workspace — 50 channels × 20 models — with metrics and health
// populated as under traffic. A measurement tool, not a test.
//
//   switchyard-routing-bench [--iterations N] [--case K]
// --case K runs only the K-th case (1-based), so a profiler sees one case's instructions.
#include "config/Config.h"
#include "service/AttemptPlan.h"
#include "service/ChatRequest.h"
#include "service/GatewayState.h"
#include "service/Workspace.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace sy;

namespace {

config::Config largeWorkspace(int channels, int models)
{
    config::Config c;
    for (int m = 0; m < models; ++m) {
        config::Model model;
        model.id = QStringLiteral("vendor/model-%1").arg(m);
        model.capabilities = {QStringLiteral("chat"), QStringLiteral("tools")};
        c.models.push_back(model);
    }
    for (int i = 0; i < channels; ++i) {
        config::Channel ch;
        ch.id = QStringLiteral("channel-%1").arg(i);
        ch.provider = QStringLiteral("provider-%1").arg(i % 12);
        ch.baseUrl = QStringLiteral("http://127.0.0.1:9/v1");
        ch.credentials = {QStringLiteral("k1"), QStringLiteral("k2")};
        ch.supportedParameters = {QStringLiteral("temperature"), QStringLiteral("max_tokens"), QStringLiteral("tools")};
        for (int m = 0; m < models; ++m) {
            if ((i + m) % 3 != 0)
                continue;  // each model on about a third of the channels
            config::ChannelModel served;
            served.id = c.models[size_t(m)].id;
            served.price = {0.1 + 0.05 * (i % 7), 0.3 + 0.1 * (i % 5)};
            ch.models.push_back(served);
        }
        c.channels.push_back(ch);
    }
    return c;
}

QByteArray requestBody(const char *provider)
{
    QJsonObject body{{"model", "vendor/model-3"},
                     {"models", QJsonArray{"vendor/model-7", "vendor/model-11"}},
                     {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "Hello there"}}}},
                     {"temperature", 0.2}};
    if (provider)
        body.insert("provider", QJsonDocument::fromJson(provider).object());
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int iterations = 20000;
    int onlyCase = 0;
    for (int i = 1; i + 1 < argc; ++i) {
        if (qstrcmp(argv[i], "--iterations") == 0)
            iterations = std::max(100, atoi(argv[i + 1]));
        if (qstrcmp(argv[i], "--case") == 0)
            onlyCase = atoi(argv[i + 1]);
    }
    const service::Workspace workspace(largeWorkspace(50, 20));
    service::GatewayState state(SystemClock::instance(), 7, std::nullopt);
    // Metrics and health as after some traffic, so sorts and thresholds have data to read.
    for (const config::Channel &ch : workspace.config().channels) {
        for (const config::ChannelModel &m : ch.models) {
            for (int s = 0; s < 20; ++s) {
                state.metrics.recordStart({ch.id, m.id});
                state.metrics.recordFinish({ch.id, m.id}, {true, std::chrono::milliseconds(100 + s * 7),
                                                          std::chrono::milliseconds(800 + s * 13), 40.0 + s});
                state.health.recordSuccess(ch.id, m.id, std::chrono::milliseconds(100 + s));
            }
        }
    }
    const QDate today = QDate::currentDate();
    struct Case { const char *name; const char *provider; };
    const Case cases[] = {
        {"default order (weighted random)", nullptr},
        {"sort by throughput", R"({"sort":"throughput"})"},
        {"order + ignore + max_price", R"({"order":["provider-3","provider-5"],"ignore":["provider-1"],"max_price":{"prompt":0.3}})"},
        {"thresholds p50/p90", R"({"preferred_min_throughput":{"p50":45,"p90":30},"preferred_max_latency":0.2})"},
    };
    std::printf("routing decision on 50 channels x 20 models (chain of 3 models), %d iterations each\n", iterations);
    std::printf("%-36s %12s %12s %10s\n", "case", "mean us", "p99 us", "attempts");
    int caseNumber = 0;
    for (const Case &c : cases) {
        if (onlyCase != 0 && ++caseNumber != onlyCase)
            continue;
        const QByteArray body = requestBody(c.provider);
        std::vector<double> micros;
        micros.reserve(size_t(iterations));
        size_t attempts = 0;
        for (int i = 0; i < iterations; ++i) {
            const auto start = std::chrono::steady_clock::now();
            auto parsed = service::parseChatRequest(body, workspace, today);
            const auto &request = std::get<service::ChatRequest>(parsed);
            const service::AttemptPlan plan = service::planAttempts(workspace, request, state, {}, {});
            const auto end = std::chrono::steady_clock::now();
            attempts = plan.attempts.size();
            micros.push_back(std::chrono::duration<double, std::micro>(end - start).count());
        }
        std::sort(micros.begin(), micros.end());
        double sum = 0;
        for (double v : micros)
            sum += v;
        std::printf("%-36s %12.1f %12.1f %10zu\n", c.name, sum / double(micros.size()),
                    micros[size_t(double(micros.size()) * 0.99)], attempts);
    }
    std::printf("(includes parsing the request body and building the model chain)\n");
    return 0;
}
