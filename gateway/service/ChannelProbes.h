#pragma once
// ChannelProbes: the optional periodic channel test (`probe_interval_s`, 0 = off, the default:
// probes are real requests and cost money). Every interval, one one-token chat request to the
// channel's first model through the real path (ChannelTransport, OnboardingRequests); its
// outcome feeds the health tracker as a request's would. Probes are not client traffic: no
// request log entry, no charge. A manual test of a saved channel (POST
// /admin/channels/{id}/test) feeds the tracker the same way, through recordOutcome().
//
// Thread: the gateway thread. Owned by the admin API; follows configuration changes (rearm()).
#include <QHash>
#include <QObject>
#include <QTimer>
#include <memory>

namespace sy::service {

class GatewayService;
struct FetchResult;

class ChannelProbes : public QObject {
public:
    explicit ChannelProbes(GatewayService &gateway, QObject *parent = nullptr);
    ~ChannelProbes() override;

    // Reads the current workspace: one timer per enabled channel with a probe interval. Timers of
    // channels whose interval did not change keep running.
    void rearm();
    // Probes started since construction (tests, metrics).
    quint64 probesSent() const { return m_sent; }

    // One probe's or channel test's answer for (channel, model) into the gateway's health
    // tracker: a 2xx is a success with its latency, anything else (transport error included) a
    // failure. Thread: the gateway thread.
    static void recordOutcome(GatewayService &gateway, const QString &channelId, const QString &modelId,
                              const FetchResult &result);

private:
    void probe(const QString &channelId);

    GatewayService &m_gateway;
    QHash<QString, std::shared_ptr<QTimer>> m_timers;   // by channel id
    quint64 m_sent = 0;
};

} // namespace sy::service
