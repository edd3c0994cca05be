// AdminApi, usage history (docs/admin-api.md): GET /admin/usage/history?days=30&by=key|model
// [&format=csv]. What the gateway holds in memory (request log, the ledger's newest entries, and
// without a database the sums of the charges the ledger no longer holds) is read on the gateway
// thread; with a database behind it, the longer history is read on a pool thread (store reads
// block their caller) and the call is answered back on the gateway thread.
#include "onboarding/UsageHistory.h"
#include "service/AdminCall.h"
#include "service/GatewayService.h"

#include <QJsonDocument>
#include <QPointer>
#include <QSet>
#include <QThreadPool>
#include <QTimeZone>
#include <limits>

namespace sy::service {

namespace {

constexpr int kMaxDays = 366;
// Store pages of StoredRequestFilter::kMaxLimit; past this many the oldest days come from the
// ledger only (a bound on one admin read, about a million requests).
constexpr int kMaxStorePages = 100;

struct UsageInput {
    std::vector<onboarding::UsageRequest> requests;
    std::vector<onboarding::UsageCharge> charges;
};

onboarding::UsageRequest fromRecord(const RequestRecord &record)
{
    return {QString::fromLatin1(record.id), record.at, record.keyName,
            record.answeringModel.isEmpty() ? record.requestedModel : record.answeringModel,
            record.promptTokens, record.completionTokens};
}

onboarding::UsageRequest fromStored(const storage::StoredRequest &stored)
{
    const QJsonObject json = QJsonDocument::fromJson(stored.json).object();
    const QJsonObject tokens = json.value("tokens").toObject();
    const QString answering = json.value("model").toString();
    return {QString::fromLatin1(stored.id), stored.at, stored.keyName, answering.isEmpty() ? stored.model : answering,
            qint64(tokens.value("prompt").toDouble()), qint64(tokens.value("completion").toDouble())};
}

void addCharges(UsageInput &input, QSet<quint64> &seen, const std::vector<billing::LedgerEntry> &entries)
{
    for (const billing::LedgerEntry &e : entries) {
        if (e.kind != billing::LedgerEntry::Kind::Charge || seen.contains(e.sequence))
            continue;
        seen.insert(e.sequence);
        input.charges.push_back({e.requestId, e.at, e.keyName, e.modelId, e.promptTokens, e.completionTokens, e.amount});
    }
}

void addStoredCharges(UsageInput &input, QSet<quint64> &seen, const std::vector<storage::StoredLedgerEntry> &entries)
{
    for (const storage::StoredLedgerEntry &e : entries) {
        if (e.kind != QLatin1String(storage::kLedgerCharge) || seen.contains(e.sequence))
            continue;
        seen.insert(e.sequence);
        input.charges.push_back({e.requestId, e.at, e.keyName, e.modelId, e.promptTokens, e.completionTokens, e.amountNanos});
    }
}

void addStoredRequests(UsageInput &input, storage::Store &store, const QDateTime &since)
{
    storage::StoredRequestFilter filter;
    filter.limit = storage::StoredRequestFilter::kMaxLimit;
    for (int page = 0; page < kMaxStorePages; ++page) {
        const std::vector<storage::StoredRequest> rows = store.queryRequests(filter);
        for (const storage::StoredRequest &row : rows)
            if (row.at >= since)
                input.requests.push_back(fromStored(row));
        if (rows.size() < std::size_t(filter.limit) || rows.back().at < since)
            return;
        filter.beforeAt = rows.back().at;
    }
}

} // namespace

void AdminApi::handleUsage(Call &call)
{
    if (call.path.size() != 2 || call.path[1] != QLatin1String("history"))
        return call.notFound();
    if (call.method() != "GET")
        return call.methodNotAllowed();
    const QUrlQuery &query = call.request.query;
    bool ok = true;
    const int days = query.hasQueryItem("days") ? query.queryItemValue("days").toInt(&ok) : 30;
    if (!ok || days < 1 || days > kMaxDays)
        return call.fail(400, QStringLiteral("'days' must be a whole number from 1 to %1.").arg(kMaxDays), QStringLiteral("days"));
    const QString byText = query.hasQueryItem("by") ? query.queryItemValue("by") : QStringLiteral("key");
    if (byText != u"key" && byText != u"model")
        return call.fail(400, QStringLiteral("'by' must be 'key' or 'model'."), QStringLiteral("by"));
    const QString format = query.hasQueryItem("format") ? query.queryItemValue("format") : QStringLiteral("json");
    if (format != u"json" && format != u"csv")
        return call.fail(400, QStringLiteral("'format' must be 'json' or 'csv'."), QStringLiteral("format"));
    const onboarding::UsageGrouping by = byText == u"key" ? onboarding::UsageGrouping::Key : onboarding::UsageGrouping::Model;
    const QDate lastDay = m_gateway.clock().wallNow().toUTC().date();
    const QDateTime since(lastDay.addDays(-(days - 1)), QTime(0, 0), Qt::UTC);

    auto input = std::make_shared<UsageInput>();
    auto seenCharges = std::make_shared<QSet<quint64>>();
    RequestFilter memory;
    memory.limit = std::numeric_limits<int>::max();
    for (const RequestRecord &record : m_gateway.requestLog().query(memory))
        if (record.at >= since)
            input->requests.push_back(fromRecord(record));
    addCharges(*input, *seenCharges, m_gateway.state().ledger.entriesAfter(0));

    // The JSON names the workspace currency the costs are in (CSV keeps its fixed columns).
    auto answer = [by, lastDay, days, csv = format == u"csv", currency = m_gateway.workspace()->config().currency](
                      Call &c, const UsageInput &in) {
        const std::vector<onboarding::UsageDay> table = onboarding::usageHistory(in.requests, in.charges, by, lastDay, days);
        if (csv)
            return c.replyRaw(200, "text/csv; charset=utf-8", onboarding::usageHistoryCsv(table));
        QJsonObject json = onboarding::usageHistoryJson(table, by);
        json.insert(QStringLiteral("currency"), currency);
        c.reply(200, json);
    };
    storage::Store *store = m_gateway.store();
    if (!store) {
        // Memory only: the ledger's entries, and the sums of the charges that left it.
        for (const onboarding::UsageCharge &sum : m_gateway.droppedUsage().charges())
            input->charges.push_back(sum);
        return answer(call, *input);
    }

    std::shared_ptr<Call> later = call.defer();
    QPointer<AdminApi> self(this);
    QThreadPool::globalInstance()->start([self, store, since, input, seenCharges, later, answer] {
        addStoredRequests(*input, *store, since);
        addStoredCharges(*input, *seenCharges, store->ledgerEntries(0));
        // Back to the gateway thread to answer; if the API is gone, so is the connection.
        QMetaObject::invokeMethod(self.data(), [later, input, answer] { answer(*later, *input); }, Qt::QueuedConnection);
    });
}

} // namespace sy::service
