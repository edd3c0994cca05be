#pragma once
// SimStats: what the simulator has received, for tests and benchmarks that assert upstream hit
// counts (GET /_sim/stats). Counts chat requests per provider, per model and per provider+model,
// injected failures by name, and the chat requests currently in flight (received and not yet
// answered, cut or abandoned by the client).
// Thread: one thread (the simulator's); not synchronised.
#include <QHash>
#include <QJsonObject>
#include <QString>

namespace sy::sim {

class SimStats {
public:
    // A chat request arrived for `provider`; `model` is empty when the body could not be read.
    void recordRequest(const QString &provider, const QString &model);
    void recordFailure(const QString &failureName);
    void recordInFlightStart() { ++m_inFlight; }
    void recordInFlightEnd() { --m_inFlight; }

    qint64 requests() const { return m_requests; }
    qint64 requestsForProvider(const QString &provider) const { return m_perProvider.value(provider); }
    qint64 requestsForModel(const QString &model) const { return m_perModel.value(model); }
    qint64 inFlight() const { return m_inFlight; }

    // Forgets the counts. Requests in flight stay counted: they still end later.
    void clearCounts();

    // {"requests":N,"in_flight":N,"providers":{p:N},"models":{m:N},
    //  "provider_models":{p:{m:N}},"failures":{"status:503":N}}
    QJsonObject toJson() const;

private:
    qint64 m_requests = 0;
    qint64 m_inFlight = 0;
    QHash<QString, qint64> m_perProvider;
    QHash<QString, qint64> m_perModel;
    QHash<QString, QHash<QString, qint64>> m_perProviderModel;
    QHash<QString, qint64> m_failures;
};

} // namespace sy::sim
