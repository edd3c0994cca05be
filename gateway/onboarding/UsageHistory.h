#pragma once
// UsageHistory: spend and usage per UTC day for the last N days, by key or by model, from the
// request log and the ledger (docs/admin-api.md, GET /admin/usage/history). A request counts
// once, by its id: requests and tokens come from its log record; its cost is its ledger charge
// (a request with no charge — free, failed, zero-priced — cost nothing). A charge whose request
// is no longer in the log (trimmed by retention) still counts, with the charge's own tokens.
// Pure; any thread.
#include <QByteArray>
#include <QDate>
#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <vector>

namespace sy::onboarding {

enum class UsageGrouping { Key, Model };

struct UsageRequest {
    QString requestId;
    QDateTime at;             // UTC
    QString keyName;
    QString model;            // the answering model, else the requested one
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
};

struct UsageCharge {
    QString requestId;
    QDateTime at;             // UTC, when booked
    QString keyName;
    QString model;
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 amountNanos = 0;   // workspace currency, 1e-9 units
    qint64 requests = 1;      // charges summed into this one (UsageArchive), each counted as a request
};

struct UsageRow {
    QString name;
    qint64 requests = 0;
    qint64 promptTokens = 0;
    qint64 completionTokens = 0;
    qint64 costNanos = 0;
};

struct UsageDay {
    QDate date;
    std::vector<UsageRow> rows;   // by name
};

// Every day from `lastDay - days + 1` to `lastDay` (oldest first), each with its rows.
std::vector<UsageDay> usageHistory(const std::vector<UsageRequest> &requests,
                                   const std::vector<UsageCharge> &charges, UsageGrouping by,
                                   QDate lastDay, int days);

// {"by":"key","days":[{"date":"2026-11-02","rows":[{name, requests, prompt_tokens,
// completion_tokens, cost}]}]}; cost in the workspace currency.
QJsonObject usageHistoryJson(const std::vector<UsageDay> &days, UsageGrouping by);
// date,name,requests,prompt_tokens,completion_tokens,cost — one line per row, a header first.
QByteArray usageHistoryCsv(const std::vector<UsageDay> &days);

} // namespace sy::onboarding
