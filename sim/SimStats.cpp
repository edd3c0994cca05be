#include "SimStats.h"

namespace sy::sim {

namespace {

QJsonObject countsToJson(const QHash<QString, qint64> &counts)
{
    QJsonObject object;
    for (auto it = counts.constBegin(); it != counts.constEnd(); ++it)
        object.insert(it.key(), it.value());
    return object;
}

} // namespace

void SimStats::recordRequest(const QString &provider, const QString &model)
{
    ++m_requests;
    ++m_perProvider[provider];
    if (!model.isEmpty()) {
        ++m_perModel[model];
        ++m_perProviderModel[provider][model];
    }
}

void SimStats::recordFailure(const QString &failureName)
{
    ++m_failures[failureName];
}

void SimStats::clearCounts()
{
    m_requests = 0;
    m_perProvider.clear();
    m_perModel.clear();
    m_perProviderModel.clear();
    m_failures.clear();
}

QJsonObject SimStats::toJson() const
{
    QJsonObject providerModels;
    for (auto it = m_perProviderModel.constBegin(); it != m_perProviderModel.constEnd(); ++it)
        providerModels.insert(it.key(), countsToJson(it.value()));
    return QJsonObject{
        {QStringLiteral("requests"), m_requests},
        {QStringLiteral("in_flight"), m_inFlight},
        {QStringLiteral("providers"), countsToJson(m_perProvider)},
        {QStringLiteral("models"), countsToJson(m_perModel)},
        {QStringLiteral("provider_models"), providerModels},
        {QStringLiteral("failures"), countsToJson(m_failures)},
    };
}

} // namespace sy::sim
