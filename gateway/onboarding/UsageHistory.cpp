#include "onboarding/UsageHistory.h"

#include <QHash>
#include <QJsonArray>
#include <map>

namespace sy::onboarding {

namespace {

constexpr double kNanosPerUnit = 1e9;

QString nameOf(UsageGrouping by, const QString &key, const QString &model)
{
    const QString &name = by == UsageGrouping::Key ? key : model;
    return name.isEmpty() ? QStringLiteral("(none)") : name;
}

QString csvField(const QString &text)
{
    if (!text.contains(u',') && !text.contains(u'"') && !text.contains(u'\n'))
        return text;
    QString quoted = text;
    quoted.replace(u'"', QStringLiteral("\"\""));
    return u'"' + quoted + u'"';
}

} // namespace

std::vector<UsageDay> usageHistory(const std::vector<UsageRequest> &requests,
                                   const std::vector<UsageCharge> &charges, UsageGrouping by,
                                   QDate lastDay, int days)
{
    const QDate firstDay = lastDay.addDays(-(days - 1));
    // date -> name -> row; std::map keeps both in order.
    std::map<QDate, std::map<QString, UsageRow>> table;
    auto rowFor = [&](const QDateTime &at, const QString &name) -> UsageRow * {
        const QDate date = at.toUTC().date();
        if (date < firstDay || date > lastDay)
            return nullptr;
        UsageRow &row = table[date][name];
        row.name = name;
        return &row;
    };

    QHash<QString, const UsageCharge *> chargeOf;
    for (const UsageCharge &charge : charges)
        if (!charge.requestId.isEmpty())
            chargeOf.insert(charge.requestId, &charge);

    QHash<QString, bool> counted;
    for (const UsageRequest &request : requests) {
        if (request.requestId.isEmpty() || counted.contains(request.requestId))
            continue;
        counted.insert(request.requestId, true);
        UsageRow *row = rowFor(request.at, nameOf(by, request.keyName, request.model));
        if (!row)
            continue;
        ++row->requests;
        row->promptTokens += request.promptTokens;
        row->completionTokens += request.completionTokens;
        if (const UsageCharge *charge = chargeOf.value(request.requestId))
            row->costNanos += charge->amountNanos;
    }
    for (const UsageCharge &charge : charges) {
        if (!charge.requestId.isEmpty() && counted.contains(charge.requestId))
            continue;
        UsageRow *row = rowFor(charge.at, nameOf(by, charge.keyName, charge.model));
        if (!row)
            continue;
        row->requests += charge.requests;
        row->promptTokens += charge.promptTokens;
        row->completionTokens += charge.completionTokens;
        row->costNanos += charge.amountNanos;
    }

    std::vector<UsageDay> out;
    for (QDate date = firstDay; date <= lastDay; date = date.addDays(1)) {
        UsageDay day{date, {}};
        if (const auto it = table.find(date); it != table.end())
            for (auto &[name, row] : it->second)
                day.rows.push_back(row);
        out.push_back(std::move(day));
    }
    return out;
}

QJsonObject usageHistoryJson(const std::vector<UsageDay> &days, UsageGrouping by)
{
    QJsonArray list;
    for (const UsageDay &day : days) {
        QJsonArray rows;
        for (const UsageRow &row : day.rows)
            rows.append(QJsonObject{{"name", row.name},
                                    {"requests", row.requests},
                                    {"prompt_tokens", row.promptTokens},
                                    {"completion_tokens", row.completionTokens},
                                    {"cost", double(row.costNanos) / kNanosPerUnit}});
        list.append(QJsonObject{{"date", day.date.toString(Qt::ISODate)}, {"rows", rows}});
    }
    return QJsonObject{{"by", by == UsageGrouping::Key ? "key" : "model"}, {"days", list}};
}

QByteArray usageHistoryCsv(const std::vector<UsageDay> &days)
{
    QString out = QStringLiteral("date,name,requests,prompt_tokens,completion_tokens,cost\n");
    for (const UsageDay &day : days)
        for (const UsageRow &row : day.rows)
            out += QStringLiteral("%1,%2,%3,%4,%5,%6\n")
                       .arg(day.date.toString(Qt::ISODate), csvField(row.name))
                       .arg(row.requests)
                       .arg(row.promptTokens)
                       .arg(row.completionTokens)
                       .arg(QString::number(double(row.costNanos) / kNanosPerUnit, 'f', 6));
    return out.toUtf8();
}

} // namespace sy::onboarding
