// AdminApi, runtime routes: balance and ledger, failure-lab outages, the request log with one
// request's route trace, and the live event stream (SSE) of finished requests.
#include "billing/Money.h"
#include "service/AdminCall.h"
#include "service/GatewayService.h"
#include "service/StoredLedger.h"

#include <QUrlQuery>

namespace sy::service {

namespace {

// At most this many entries in one answer of GET /admin/ledger: the `limit` parameter's default
// and maximum (as GET /admin/requests's 1,000); a reader pages on with ?after=<last sequence>.
constexpr int kMaxLedgerPage = 1'000;

QJsonObject ledgerEntryJson(const billing::LedgerEntry &e)
{
    return QJsonObject{
        {"sequence", double(e.sequence)},
        {"at", e.at.toString(Qt::ISODateWithMs)},
        {"kind", e.kind == billing::LedgerEntry::Kind::Charge ? "charge" : "topup"},
        {"request_id", e.requestId},
        {"key", e.keyName},
        {"model", e.modelId},
        {"channel", e.channelId},
        {"prompt_tokens", double(e.promptTokens)},
        {"completion_tokens", double(e.completionTokens)},
        {"amount", billing::formatCurrency(e.amount, 9)},
        {"note", e.note},
    };
}

QJsonObject outageJson(const failover::Outage &o, Clock::TimePoint now)
{
    return QJsonObject{{"id", double(o.id)},
                       {"channel", o.channelId},
                       {"model", o.modelId},
                       {"description", failover::describeOutage(o, now)},
                       {"seconds_left", double(std::chrono::duration_cast<std::chrono::seconds>(o.until - now).count())}};
}

} // namespace

void AdminApi::handleBalance(Call &call)
{
    billing::Ledger &ledger = m_gateway.state().ledger;
    const QString currency = m_gateway.workspace()->config().currency;
    auto summary = [&] {
        const QDateTime dayStart(m_gateway.clock().wallNow().date(), QTime(0, 0), Qt::UTC);
        return QJsonObject{{"currency", currency},
                           {"metered", ledger.isMetered()},
                           {"balance", billing::formatCurrency(ledger.balance(), 9)},
                           {"reserved_in_flight", billing::formatCurrency(ledger.reservedInFlight(), 9)},
                           {"spent_today", billing::formatCurrency(ledger.spentSince(dayStart), 9)}};
    };
    if (call.path.size() == 1 && call.method() == "GET")
        return call.reply(200, summary());
    if (call.path.size() == 2 && call.path.at(1) == QLatin1String("top-up") && call.method() == "POST") {
        const auto body = call.bodyObject();
        if (!body)
            return;
        const QJsonValue amount = body->value("amount");
        if (!amount.isDouble() || amount.toDouble() <= 0 || amount.toDouble() > 1e9)
            return call.fail(400, QStringLiteral("'amount' must be a positive number."), QStringLiteral("amount"));
        ledger.topUp(billing::fromCurrency(amount.toDouble()), body->value("note").toString(QStringLiteral("top-up")));
        ledger.awaitJournal();  // the answer shows the new balance: committed, not only booked
        m_gateway.persistLedger();
        return call.reply(200, summary());
    }
    call.notFound();
}

void AdminApi::handleOutages(Call &call)
{
    failover::OutagePlan &plan = m_gateway.outages();
    const auto now = m_gateway.clock().now();
    if (call.method() == "GET" && call.path.size() == 1) {
        QJsonArray out;
        for (const failover::Outage &o : plan.active())
            out.append(outageJson(o, now));
        return call.reply(200, out);
    }
    if (call.method() == "POST" && call.path.size() == 1) {
        const auto body = call.bodyObject();
        if (!body)
            return;
        const QString channel = body->value("channel").toString();
        const QString model = body->value("model").toString();
        if (channel.isEmpty() == model.isEmpty())
            return call.fail(400, QStringLiteral("Give exactly one of 'channel' or 'model'."), QStringLiteral("channel"));
        const WorkspacePtr ws = m_gateway.workspace();
        const bool known = !channel.isEmpty()
            ? std::any_of(ws->config().channels.begin(), ws->config().channels.end(), [&](const auto &c) { return c.id == channel; })
            : ws->findModel(model) != nullptr;
        if (!known)
            return call.fail(400, QStringLiteral("Unknown %1 '%2'.").arg(channel.isEmpty() ? QStringLiteral("model") : QStringLiteral("channel"),
                                                                        channel.isEmpty() ? model : channel),
                             channel.isEmpty() ? QStringLiteral("model") : QStringLiteral("channel"));
        std::optional<failover::Outage> outage = failover::parseOutageKind(body->value("kind").toString());
        if (!outage)
            return call.fail(400, QStringLiteral("'kind' must be error:<4xx|5xx>, rate_limit, timeout, hang, drop_mid_stream or slow."),
                             QStringLiteral("kind"));
        const double seconds = body->value("duration_s").toDouble(60);
        if (seconds <= 0 || seconds > 24 * 3600)
            return call.fail(400, QStringLiteral("'duration_s' must be between 0 and 86400."), QStringLiteral("duration_s"));
        if (const QJsonValue extra = body->value("extra_latency_ms"); extra.isDouble())
            outage->extraLatency = std::chrono::milliseconds(qint64(extra.toDouble()));
        outage->channelId = channel;
        outage->modelId = model;
        outage->until = now + std::chrono::milliseconds(qint64(seconds * 1000));
        outage->id = plan.set(*outage);
        return call.reply(201, outageJson(*outage, now));
    }
    if (call.method() == "DELETE") {
        if (call.path.size() == 1) {
            plan.clear();
            return call.reply(200, QJsonObject{{"cleared", true}});
        }
        bool ok = false;
        const quint64 id = call.path.at(1).toULongLong(&ok);
        if (!ok || !plan.remove(id))
            return call.fail(404, QStringLiteral("No outage %1.").arg(call.path.at(1)));
        return call.reply(200, QJsonObject{{"removed", double(id)}});
    }
    call.methodNotAllowed();
}

void AdminApi::handleRequests(Call &call)
{
    if (call.method() != "GET")
        return call.methodNotAllowed();
    RequestLog &log = m_gateway.requestLog();
    storage::Store *store = m_gateway.store();
    if (call.path.size() == 2) {
        const QByteArray id = call.path.at(1).toLatin1();
        // The record with its message contents, when they were logged (settings.log_message_content).
        auto withContent = [](QJsonObject json, const std::optional<RequestContent> &content) {
            if (content)
                json.insert("content", content->toJson());
            return json;
        };
        // The store is read on its own thread (Store::post): a shared database is a network round
        // trip away, and the gateway thread must not wait for it. `later` answers then.
        auto later = std::make_shared<Call>(Call{call.request, call.sink, call.path, std::exchange(call.answer, nullptr)});
        if (const std::optional<RequestRecord> record = log.find(id)) {
            std::optional<RequestContent> content;
            if (record->content)
                content = *record->content;
            if (content || !record->contentInStoreOnly || !store)
                return later->reply(200, withContent(record->toJson(), content));
            QJsonObject json = record->toJson();
            store->post([store, id, later, json, withContent]() -> std::function<void()> {
                const std::optional<storage::StoredRequest> stored = store->request(id);
                return [later, json, withContent, stored] {
                    std::optional<RequestContent> content;
                    if (stored)
                        content = RequestContent::fromJsonBytes(stored->content);
                    later->reply(200, withContent(json, content));
                };
            });
            return;
        }
        // Older than what memory keeps (or from an earlier run): the database has it.
        if (!store)
            return later->fail(404, QStringLiteral("No request %1 in the log.").arg(later->path.at(1)));
        store->post([store, id, later, withContent]() -> std::function<void()> {
            const std::optional<storage::StoredRequest> stored = store->request(id);
            return [later, withContent, stored] {
                if (!stored)
                    return later->fail(404, QStringLiteral("No request %1 in the log.").arg(later->path.at(1)));
                if (stored->content.isEmpty())
                    return later->replyRaw(200, "application/json", stored->json);
                later->reply(200, withContent(QJsonDocument::fromJson(stored->json).object(),
                                              RequestContent::fromJsonBytes(stored->content)));
            };
        });
        return;
    }
    const QUrlQuery &q = call.request.query;
    RequestFilter filter;
    filter.keyName = q.queryItemValue("key");
    filter.model = q.queryItemValue("model");
    if (q.hasQueryItem("status")) {
        bool ok = false;
        filter.status = q.queryItemValue("status").toInt(&ok);
        if (!ok)
            return call.fail(400, QStringLiteral("'status' must be a number."), QStringLiteral("status"));
    }
    if (q.hasQueryItem("failed"))
        filter.failedOnly = q.queryItemValue("failed") == QLatin1String("1");
    if (q.hasQueryItem("failed_over"))
        filter.failedOver = q.queryItemValue("failed_over") == QLatin1String("1");
    if (q.hasQueryItem("limit"))
        filter.limit = std::clamp(q.queryItemValue("limit").toInt(), 1, 1000);
    QJsonArray out;
    QSet<QByteArray> seen;
    for (const RequestRecord &r : log.query(filter)) {
        out.append(r.toJson());
        seen.insert(r.id);
    }
    // Memory holds the newest requests; the database the rest (and the runs before this one),
    // read on the store's thread (see above).
    if (!store || out.size() >= filter.limit)
        return call.reply(200, out);
    storage::StoredRequestFilter stored;
    stored.keyName = filter.keyName;
    stored.model = filter.model;
    stored.status = filter.status;
    stored.failedOnly = filter.failedOnly.value_or(false);
    stored.failedOver = filter.failedOver;
    stored.limit = filter.limit;
    auto later = std::make_shared<Call>(Call{call.request, call.sink, call.path, std::exchange(call.answer, nullptr)});
    store->post([store, stored, later, out, seen, limit = filter.limit]() -> std::function<void()> {
        std::vector<storage::StoredRequest> rows = store->queryRequests(stored);
        return [later, out, seen, limit, rows = std::move(rows)]() mutable {
            for (const storage::StoredRequest &r : rows) {
                if (out.size() >= limit)
                    break;
                if (!seen.contains(r.id))
                    out.append(QJsonDocument::fromJson(r.json).object());
            }
            later->reply(200, out);
        };
    });
}

void AdminApi::handleLedger(Call &call)
{
    if (call.method() != "GET")
        return call.methodNotAllowed();
    const QUrlQuery &q = call.request.query;
    const quint64 after = q.queryItemValue("after").toULongLong();
    const int limit = q.hasQueryItem("limit") ? std::clamp(q.queryItemValue("limit").toInt(), 1, kMaxLedgerPage)
                                              : kMaxLedgerPage;
    const billing::Ledger &ledger = m_gateway.state().ledger;
    storage::Store *store = m_gateway.store();
    // Memory holds the newest entries (Ledger::kRetainedEntries); without a store that is all
    // there is, and the answer starts at the oldest one held.
    if (!store || after >= ledger.droppedThrough()) {
        QJsonArray out;
        for (const billing::LedgerEntry &e : ledger.entriesAfter(after, std::size_t(limit)))
            out.append(ledgerEntryJson(e));
        return call.reply(200, out);
    }
    // Older entries are in the store, which holds every published entry (each was committed
    // before it was shown, or came from it); read on the store's thread, as the request log is.
    // Only what is published here by now is listed, as from memory.
    const quint64 publishedThrough = ledger.lastSequence();
    std::shared_ptr<Call> later = call.defer();
    store->post([store, after, limit, publishedThrough, later]() -> std::function<void()> {
        std::vector<storage::StoredLedgerEntry> rows = store->ledgerEntries(after, limit);
        return [later, publishedThrough, rows = std::move(rows)] {
            // There is at least the dropped entry after `after`: nothing back is a failed read.
            if (rows.empty())
                return later->fail(500, QStringLiteral("The ledger could not be read from the database."));
            QJsonArray out;
            for (const storage::StoredLedgerEntry &row : rows) {
                if (row.sequence > publishedThrough)
                    break;
                out.append(ledgerEntryJson(fromStored(row)));
            }
            later->reply(200, out);
        };
    });
}

void AdminApi::handleEvents(Call &call)
{
    if (call.method() != "GET")
        return call.methodNotAllowed();
    // A live SSE stream: one `request` event per finished request, until the client leaves.
    if (!call.sink)
        return call.fail(400, QStringLiteral("The event stream needs an HTTP connection: GET /admin/events."));
    std::shared_ptr<http::ResponseSink> sink = call.sink;
    sink->begin(200, {{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-cache"}});
    sink->write(": switchyard request events\n\n");
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = connect(&m_gateway.requestLog(), &RequestLog::recorded, this, [sink, connection](const RequestRecord &record) {
        if (!sink->isOpen()) {
            QObject::disconnect(*connection);
            return;
        }
        sink->write("event: request\ndata: " + record.toJsonBytes() + "\n\n");
    });
    sink->onClientGone([connection] { QObject::disconnect(*connection); });
}

} // namespace sy::service
