// switchyard-latency-probe: open-loop load at a fixed rate (requests are due on schedule whether
// or not earlier ones have answered, so a slow server cannot slow the load down and hide its own
// latency), then latency percentiles. A measurement tool, not a test.
//
//   switchyard-latency-probe --url URL --rate N --seconds S [--connections C] [--key SECRET] [--model ID]
//                            [--slow-ms X]
//
// Connections: at most C requests are in flight at once (default 32, as wrk's load in bench/run
// and bench/routing), so at most C keep-alive connections are opened and then reused, as a
// client's bounded connection pool does. A request that is due while all C are busy waits for
// the first free one, and that wait is part of its latency, which always counts from the
// scheduled time. `--connections 0` puts no bound: every request due while the others are busy
// goes out at once on a connection of its own, so when answers slow down the probe opens new
// connections (libcurl keeps at most 256 idle ones; beyond that each finished connection is
// closed), which makes the server's work per request grow exactly when it falls behind.
//
// Sending on time: each request goes out at its scheduled time, to within the wake-up of a
// timerfd armed on CLOCK_MONOTONIC for the next one (tens of µs), on the gateway's own epoll
// loop. (Until 2026-12-02 a 1 ms Qt timer made requests due, and it woke only every ~2 ms: the
// probe's own send delay of 0–2 ms was in every figure, direct and through the gateway alike.)
//
// Prints one line: "sent N ok N failed N p50_ms X p90_ms X p99_ms X max_ms X in_flight_max N
// waited N" (waited: requests that found every connection busy at their scheduled time).
#include "core/EpollEventDispatcher.h"
#include "upstream/CurlUpstreamClient.h"

#include <QCoreApplication>
#include <QSocketNotifier>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <memory>
#include <sys/timerfd.h>
#include <unistd.h>
#include <vector>

using namespace sy;

namespace {

qint64 monotonicNs()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return qint64(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

struct Probe : upstream::StreamHandler {
    qint64 startNs = 0;      // CLOCK_MONOTONIC of the first scheduled time
    qint64 scheduledNs = 0;  // this request's scheduled time, CLOCK_MONOTONIC
    int status = 0;
    std::vector<double> *latencies = nullptr;
    std::vector<std::pair<double, double>> *slow = nullptr;  // (scheduled s from start, ms) past slowMs
    double slowMs = 0;
    int *failed = nullptr;
    std::function<void()> finished;  // frees the connection slot (may send the next request)

    void onHeaders(int s, const http::HeaderList &) override { status = s; }
    void onChunk(const QByteArray &) override {}
    void onComplete() override
    {
        if (status == 200) {
            const double ms = double(monotonicNs() - scheduledNs) / 1e6;
            latencies->push_back(ms);
            if (slowMs > 0 && ms > slowMs)
                slow->emplace_back(double(scheduledNs - startNs) / 1e9, ms);
        } else
            ++*failed;
        finished();
    }
    void onError(const upstream::UpstreamError &) override
    {
        ++*failed;
        finished();
    }
};

QString argument(const QStringList &args, const QString &name, const QString &fallback)
{
    const qsizetype i = args.indexOf(name);
    return i >= 0 && i + 1 < args.size() ? args.at(i + 1) : fallback;
}

} // namespace

int main(int argc, char **argv)
{
    if (QAbstractEventDispatcher *dispatcher = createGatewayEventDispatcher())
        QCoreApplication::setEventDispatcher(dispatcher);
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const QByteArray url = argument(args, "--url", {}).toUtf8();
    const double rate = argument(args, "--rate", "1000").toDouble();
    const double seconds = argument(args, "--seconds", "10").toDouble();
    const int connections = argument(args, "--connections", "32").toInt();
    const QByteArray key = argument(args, "--key", "sk-bench").toUtf8();
    const QByteArray model = argument(args, "--model", "bench/model").toUtf8();
    if (url.isEmpty() || rate <= 0 || seconds <= 0 || connections < 0) {
        std::fprintf(stderr, "usage: switchyard-latency-probe --url URL --rate N --seconds S [--connections C]"
                             " [--key K] [--model M] [--slow-ms X]\n");
        return 2;
    }
    upstream::CurlUpstreamClient client;
    std::vector<double> latencies;
    // --slow-ms X: each answer slower than X ms, by its scheduled time, on stderr (when the slow
    // ones fall: together in a stall, at a period, at the start).
    const double slowMs = argument(args, "--slow-ms", "0").toDouble();
    std::vector<std::pair<double, double>> slow;
    std::vector<std::unique_ptr<Probe>> probes;
    int failed = 0;
    int inFlight = 0;
    int inFlightMax = 0;
    qint64 waited = 0;
    const qint64 total = qint64(rate * seconds);
    // Request i is scheduled at startNs + i / rate, on CLOCK_MONOTONIC, so a slow answer's time
    // can be matched with a trace of the server (perf record -k CLOCK_MONOTONIC).
    const qint64 startNs = monotonicNs() + 2'000'000;
    const auto scheduledAt = [&](qint64 i) { return startNs + qint64(double(i) / rate * 1e9); };
    const QByteArray body = R"({"model":")" + model + R"(","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16})";

    qint64 due = 0;   // requests whose scheduled time has come
    qint64 sent = 0;  // of those, sent (the rest wait for a free connection, oldest first)
    std::function<void()> sendWaiting;
    const auto send = [&] {
        auto probe = std::make_unique<Probe>();
        probe->startNs = startNs;
        // Latency counts from the scheduled time, not the send time (no coordinated omission).
        probe->scheduledNs = scheduledAt(sent);
        probe->latencies = &latencies;
        probe->slow = &slow;
        probe->slowMs = slowMs;
        probe->failed = &failed;
        probe->finished = [&] {
            --inFlight;
            sendWaiting();
        };
        upstream::UpstreamRequest request;
        request.url = url;
        request.headers = {{"content-type", "application/json"}, {"authorization", "Bearer " + key}};
        request.body = body;
        client.send(std::move(request), probe.get());
        probes.push_back(std::move(probe));
        ++sent;
        inFlightMax = std::max(inFlightMax, ++inFlight);
    };
    sendWaiting = [&] {
        while (sent < due && (connections == 0 || inFlight < connections))
            send();
        if (sent >= total && inFlight == 0)
            app.quit();
    };

    // The timerfd fires at the next request's scheduled time; every request whose time has come
    // is then due, and it is armed again for the one after.
    const int timer = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (timer < 0) {
        std::perror("timerfd_create");
        return 1;
    }
    const auto arm = [&](qint64 atNs) {
        itimerspec spec{};
        spec.it_value.tv_sec = atNs / 1'000'000'000;
        spec.it_value.tv_nsec = atNs % 1'000'000'000;
        ::timerfd_settime(timer, TFD_TIMER_ABSTIME, &spec, nullptr);
    };
    QSocketNotifier onTime(timer, QSocketNotifier::Read);
    QObject::connect(&onTime, &QSocketNotifier::activated, [&] {
        quint64 expirations = 0;
        [[maybe_unused]] const ssize_t n = ::read(timer, &expirations, sizeof expirations);
        const qint64 now = monotonicNs();
        qint64 reached = due;
        while (reached < total && scheduledAt(reached) <= now)
            ++reached;
        if (connections > 0 && reached > due)
            waited += std::max<qint64>(0, reached - due - std::max(0, connections - inFlight));
        due = reached;
        sendWaiting();
        if (due < total)
            arm(scheduledAt(due));
    });
    arm(scheduledAt(0));
    // Bounded: a server that never answers ends the run.
    QTimer::singleShot(qint64((seconds + 30) * 1000), &app, &QCoreApplication::quit);
    app.exec();

    std::sort(slow.begin(), slow.end());
    for (const auto &[at, ms] : slow)
        std::fprintf(stderr, "slow %.3f s %.2f ms monotonic %.6f\n", at, ms, double(startNs) / 1e9 + at);
    std::sort(latencies.begin(), latencies.end());
    auto at = [&](double q) { return latencies.empty() ? 0.0 : latencies[std::min(latencies.size() - 1, size_t(q * double(latencies.size())))]; };
    std::printf("sent %lld ok %zu failed %d p50_ms %.2f p90_ms %.2f p99_ms %.2f max_ms %.2f in_flight_max %d waited %lld\n",
                static_cast<long long>(sent), latencies.size(), failed, at(0.5), at(0.9), at(0.99),
                latencies.empty() ? 0.0 : latencies.back(), inFlightMax, static_cast<long long>(waited));
    return 0;
}
