#include "RequestLogModel.h"

namespace sy::app {

RequestLogModel::RequestLogModel(QObject *parent)
    : KeyedRowsModel(parent)
{
}

QHash<int, QByteArray> RequestLogModel::roleNames() const
{
    return {
        {RequestIdRole, "requestId"},
        {TimeRole, "time"},
        {KeyNameRole, "keyName"},
        {RequestedModelRole, "requestedModel"},
        {AnsweringModelRole, "answeringModel"},
        {ChannelRole, "channel"},
        {StatusRole, "status"},
        {TotalMsRole, "totalMs"},
        {AttemptsRole, "attempts"},
        {FailedOverRole, "failedOver"},
        {StreamRole, "stream"},
        {TokensRole, "tokens"},
        {ErrorRole, "error"},
    };
}

QVariant RequestLogModel::value(const service::RequestRecord &row, int role) const
{
    switch (role) {
    case RequestIdRole: return QString::fromLatin1(row.id);
    case TimeRole: return row.at.toLocalTime().toString(QStringLiteral("HH:mm:ss.zzz"));
    case KeyNameRole: return row.keyName;
    case RequestedModelRole: return row.requestedModel;
    case AnsweringModelRole: return row.answeringModel;
    case ChannelRole: return row.answeringChannel;
    case StatusRole: return row.status;
    case TotalMsRole: return row.totalMs;
    case AttemptsRole: return row.attempts.count();
    case FailedOverRole: return row.failedOver();
    case StreamRole: return row.stream;
    case TokensRole: return row.promptTokens + row.completionTokens;
    case ErrorRole: return row.errorMessage;
    default: return {};
    }
}

service::RequestFilter RequestLogModel::filter() const
{
    service::RequestFilter f;
    f.keyName = m_keyName;
    f.model = m_model;
    bool isNumber = false;
    const int exact = m_status.toInt(&isNumber);
    if (isNumber)
        f.status = exact;
    else if (m_status == QLatin1String("failed"))
        f.failedOnly = true;
    else if (m_status == QLatin1String("ok"))
        f.failedOnly = false;
    if (m_failedOverOnly)
        f.failedOver = true;
    f.limit = m_limit;
    return f;
}

bool RequestLogModel::matches(const service::RequestRecord &record) const
{
    // A page fetched before the filter changed may still arrive: keep only what fits now.
    if (m_status == QLatin1String("ok") && (record.status < 200 || record.status >= 300))
        return false;
    const service::RequestFilter f = filter();
    if (!f.keyName.isEmpty() && record.keyName != f.keyName)
        return false;
    if (!f.model.isEmpty() && record.requestedModel != f.model && record.answeringModel != f.model)
        return false;
    if (f.status && record.status != *f.status)
        return false;
    if (f.failedOnly.value_or(false) && record.status < 400)
        return false;
    if (f.failedOver && record.failedOver() != *f.failedOver)
        return false;
    return true;
}

void RequestLogModel::setPage(std::vector<service::RequestRecord> records)
{
    std::erase_if(records, [this](const service::RequestRecord &r) { return !matches(r); });
    if (int(records.size()) > m_limit)
        records.resize(size_t(m_limit));
    sync(std::move(records));
}

void RequestLogModel::filterWasChanged()
{
    setPage(rows());   // drop at once what no longer fits; the owner fetches the rest
    emit filterChanged();
}

void RequestLogModel::setKeyName(const QString &keyName)
{
    if (m_keyName == keyName)
        return;
    m_keyName = keyName;
    filterWasChanged();
}

void RequestLogModel::setModel(const QString &model)
{
    if (m_model == model)
        return;
    m_model = model;
    filterWasChanged();
}

void RequestLogModel::setStatus(const QString &status)
{
    if (m_status == status)
        return;
    m_status = status;
    filterWasChanged();
}

void RequestLogModel::setFailedOverOnly(bool failedOverOnly)
{
    if (m_failedOverOnly == failedOverOnly)
        return;
    m_failedOverOnly = failedOverOnly;
    filterWasChanged();
}

void RequestLogModel::setLimit(int limit)
{
    limit = qBound(1, limit, 5'000);
    if (m_limit == limit)
        return;
    m_limit = limit;
    filterWasChanged();
}

} // namespace sy::app
