#pragma once
// TrafficGenerator: demo traffic against the gateway itself, so a user watches routing and
// failover live on the demo workspace. It sends Chat Completions requests over real HTTP at a
// steady rate, a share of them streaming, models drawn from a mix.
//
// Thread: create and use on one thread with an event loop (the gateway thread).
#include "upstream/UpstreamClient.h"

#include <QObject>
#include <QRandomGenerator>
#include <QStringList>
#include <QTimer>
#include <memory>

namespace sy::demo {

class TrafficGenerator : public QObject {
    Q_OBJECT
public:
    TrafficGenerator(QString gatewayUrl, QByteArray apiKey, QObject *parent = nullptr);
    ~TrafficGenerator() override;

    // requestsPerSecond in (0, 50]; streamShare in [0, 1]; models: the mix (uniform).
    void configure(double requestsPerSecond, double streamShare, QStringList models);
    void start();
    void stop();
    bool isRunning() const { return m_timer.isActive(); }

    quint64 sent() const { return m_sent; }
    quint64 succeeded() const { return m_succeeded; }
    quint64 failed() const { return m_failed; }
    int inFlight() const { return m_upstream->activeTransfers(); }

private:
    class Call;
    void fire();
    void finished(Call *call, bool ok);

    QString m_url;
    QByteArray m_key;
    double m_rate = 2;
    double m_streamShare = 0.5;
    QStringList m_models;
    QTimer m_timer;
    QRandomGenerator m_random{20261129};
    std::unique_ptr<upstream::UpstreamClient> m_upstream;
    std::vector<std::unique_ptr<Call>> m_calls;
    quint64 m_sent = 0;
    quint64 m_succeeded = 0;
    quint64 m_failed = 0;
};

} // namespace sy::demo
