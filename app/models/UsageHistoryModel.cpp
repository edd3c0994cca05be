#include "UsageHistoryModel.h"

#include <QHash>
#include <algorithm>

namespace sy::app {

void UsageHistoryModel::load(const QVariant &reply)
{
    const QVariantMap answer = reply.toMap();
    std::vector<UsageRow> rows;
    QStringList dates;
    QHash<QString, std::pair<double, double>> totals; // name → (cost, requests)
    for (const QVariant &dayValue : answer.value(QStringLiteral("days")).toList()) {
        const QVariantMap day = dayValue.toMap();
        const QString date = day.value(QStringLiteral("date")).toString();
        if (date.isEmpty() || dates.contains(date))
            continue;
        dates.push_back(date);
        for (const QVariant &rowValue : day.value(QStringLiteral("rows")).toList()) {
            const QVariantMap r = rowValue.toMap();
            UsageRow row;
            row.date = date;
            row.name = r.value(QStringLiteral("name")).toString();
            if (row.name.isEmpty())
                continue;
            row.requests = r.value(QStringLiteral("requests")).toDouble();
            row.promptTokens = r.value(QStringLiteral("prompt_tokens")).toDouble();
            row.completionTokens = r.value(QStringLiteral("completion_tokens")).toDouble();
            row.cost = r.value(QStringLiteral("cost")).toDouble();
            auto &total = totals[row.name];
            total.first += row.cost;
            total.second += row.requests;
            rows.push_back(row);
        }
    }
    std::sort(dates.begin(), dates.end()); // ISO dates sort as text
    QStringList names = totals.keys();
    std::sort(names.begin(), names.end(), [&](const QString &a, const QString &b) {
        const auto &ta = totals[a];
        const auto &tb = totals[b];
        if (ta.first != tb.first)
            return ta.first > tb.first;
        if (ta.second != tb.second)
            return ta.second > tb.second;
        return a < b;
    });
    std::stable_sort(rows.begin(), rows.end(), [&](const UsageRow &a, const UsageRow &b) {
        if (a.date != b.date)
            return a.date > b.date;
        return names.indexOf(a.name) < names.indexOf(b.name);
    });

    beginResetModel();
    m_by = answer.value(QStringLiteral("by")).toString();
    m_dates = dates;
    m_names = names;
    m_rows = std::move(rows);
    endResetModel();
    emit loaded();
}

double UsageHistoryModel::metricOf(const UsageRow &row, const QString &metric)
{
    if (metric == QLatin1String("requests"))
        return row.requests;
    if (metric == QLatin1String("prompt_tokens"))
        return row.promptTokens;
    if (metric == QLatin1String("completion_tokens"))
        return row.completionTokens;
    if (metric == QLatin1String("tokens"))
        return row.promptTokens + row.completionTokens;
    if (metric == QLatin1String("cost"))
        return row.cost;
    return 0;
}

QVariantList UsageHistoryModel::values(const QString &name, const QString &metric) const
{
    QVariantList out;
    out.reserve(m_dates.size());
    for (const QString &date : m_dates) {
        double sum = 0;
        for (const UsageRow &row : m_rows) {
            if (row.date == date && row.name == name)
                sum += metricOf(row, metric);
        }
        out.push_back(sum);
    }
    return out;
}

double UsageHistoryModel::maxDayTotal(const QString &metric) const
{
    QHash<QString, double> perDay;
    for (const UsageRow &row : m_rows)
        perDay[row.date] += metricOf(row, metric);
    double top = 0;
    for (double v : std::as_const(perDay))
        top = std::max(top, v);
    return top;
}

double UsageHistoryModel::totalRequests() const
{
    double sum = 0;
    for (const UsageRow &row : m_rows)
        sum += row.requests;
    return sum;
}

double UsageHistoryModel::totalTokens() const
{
    double sum = 0;
    for (const UsageRow &row : m_rows)
        sum += row.promptTokens + row.completionTokens;
    return sum;
}

double UsageHistoryModel::totalCost() const
{
    double sum = 0;
    for (const UsageRow &row : m_rows)
        sum += row.cost;
    return sum;
}

int UsageHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant UsageHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const UsageRow &row = m_rows[size_t(index.row())];
    switch (role) {
    case DateRole:
        return row.date;
    case NameRole:
    case Qt::DisplayRole:
        return row.name;
    case RequestsRole:
        return row.requests;
    case PromptTokensRole:
        return row.promptTokens;
    case CompletionTokensRole:
        return row.completionTokens;
    case CostRole:
        return row.cost;
    default:
        return {};
    }
}

QHash<int, QByteArray> UsageHistoryModel::roleNames() const
{
    return {{DateRole, "date"},
            {NameRole, "name"},
            {RequestsRole, "requests"},
            {PromptTokensRole, "promptTokens"},
            {CompletionTokensRole, "completionTokens"},
            {CostRole, "cost"}};
}

} // namespace sy::app
