#include "service/AdmissionGate.h"

#include "storage/Store.h"

#include <algorithm>

namespace sy::service {

namespace {

int secondsUp(std::chrono::milliseconds ms)
{
    return int(std::max<qint64>(1, (ms.count() + 999) / 1000));
}

// The refusal of every new request while `store`'s request-log queue holds its bound (SPEC §10:
// every answered request is logged); nothing while it may run. One atomic read.
std::optional<ErrorReply> requestLogRefusal(const storage::Store *store)
{
    const std::optional<quint64> waiting = store ? store->requestLogFull() : std::nullopt;
    if (!waiting)
        return std::nullopt;
    return ErrorReply{503, QStringLiteral("The workspace database is not keeping up (%1 request-log rows wait to be "
                                          "written), so requests are refused until they are. Retry shortly.")
                               .arg(*waiting),
                      "database_unavailable", {}, 1};
}

constexpr char kRequestLogFull[] = "request_log_full";

} // namespace

AdmissionGate::AdmissionGate(GatewayState &state, const Clock &clock, QObject *parent)
    : QObject(parent)
    , m_state(state)
    , m_clock(clock)
{
    // A freed concurrency slot wakes the key's first waiter.
    m_state.keyLimiter.setOnRelease([this](const QString &keyName) { wakeKey(keyName); });
}

AdmissionGate::~AdmissionGate()
{
    m_state.keyLimiter.setOnRelease(nullptr);
    if (m_shared)
        m_shared->setOnRelease(nullptr);
}

void AdmissionGate::setSharedLimits(limits::SharedKeyLimits *limits)
{
    if (m_shared)
        m_shared->setOnRelease(nullptr);
    m_shared = limits;
    if (m_shared)
        m_shared->setOnRelease([this](const QString &keyName) { wakeKey(keyName); });
}

std::optional<ErrorReply> breakerRefusal(GatewayState &state, const QString &keyName)
{
    const limits::KeyBreaker::Verdict breaker = state.breaker.check(keyName);
    if (breaker.state == limits::BreakerState::Disabled) {
        ++state.refusals["key_breaker_disabled"];
        return ErrorReply{403, QStringLiteral("This API key was disabled after repeated failed requests. Re-enable it in the dashboard."),
                          "key_disabled_by_breaker"};
    }
    if (breaker.state == limits::BreakerState::Suspended) {
        ++state.refusals["key_breaker_suspended"];
        const limits::BreakerPolicy &policy = state.breaker.policy();
        return ErrorReply{429, QStringLiteral("This API key is suspended for a while: more than %1% of its requests in the last %2 s failed "
                                                 "(at least %3 requests).")
                                   .arg(policy.failureShareAbove * 100, 0, 'g', 4).arg(policy.window.count()).arg(policy.minRequests),
                          "key_suspended", {}, secondsUp(breaker.retryAfter)};
    }
    return std::nullopt;
}

void AdmissionGate::admit(AdmissionRequest request, Done done)
{
    Waiter waiter{std::move(request), std::move(done), m_clock.now(), {}, nullptr};
    waiter.deadline = waiter.since + waiter.request.keyWait;
    if (tryOnce(waiter))
        return;
    m_waiters.push_back(std::move(waiter));
}

bool AdmissionGate::tryOnce(Waiter &waiter)
{
    // First, and at every retry of a waiter: a request that could not be logged must not run.
    // A waiter whose shared-limits answer is on its way is checked again when it comes.
    if (!waiter.asking) {
        if (std::optional<ErrorReply> refusal = requestLogRefusal(m_requestLog)) {
            refuse(waiter, std::move(*refusal), kRequestLogFull);
            return true;
        }
    }
    const AdmissionRequest &r = waiter.request;
    const limits::KeyLimits keyLimits{r.key.rpm, r.key.maxConcurrent};
    if (m_shared && limits::SharedKeyLimits::anyLimit(keyLimits, r.modelRequestsPerMinute)) {
        if (waiter.asking)
            return false;
        waiter.asking = true;
        const quint64 token = r.token;
        // The answer never comes from inside tryAcquire, so the waiter is queued by then.
        m_shared->tryAcquire(r.key.name, keyLimits, r.primaryModel, r.modelRequestsPerMinute,
                             [this, token](limits::SharedOutcome outcome) { onSharedAnswer(token, std::move(outcome)); });
        return false;
    }
    return settle(waiter, m_state.keyLimiter.tryAcquire(r.key.name, keyLimits, r.primaryModel, r.modelRequestsPerMinute));
}

void AdmissionGate::onSharedAnswer(quint64 token, limits::SharedOutcome outcome)
{
    const auto it = std::find_if(m_waiters.begin(), m_waiters.end(), [token](const Waiter &w) { return w.request.token == token; });
    if (it == m_waiters.end())
        return;  // cancelled meanwhile: a permit in `outcome` is released here
    it->asking = false;
    bool answered = true;
    if (auto *unavailable = std::get_if<limits::Unavailable>(&outcome)) {
        refuse(*it, ErrorReply{503, QStringLiteral("The key's limits cannot be checked right now (%1). Retry shortly.").arg(unavailable->reason),
                               "limits_unavailable", {}, secondsUp(unavailable->retryAfter)},
               "limits_unavailable");
    } else if (auto *refusal = std::get_if<limits::Refusal>(&outcome)) {
        answered = settle(*it, std::move(*refusal));
    } else if (std::optional<ErrorReply> full = requestLogRefusal(m_requestLog)) {
        refuse(*it, std::move(*full), kRequestLogFull);  // filled while the limits answered: the permit goes back
    } else {
        answered = settle(*it, std::get<limits::KeyLimiter::Permit>(std::move(outcome)));
    }
    if (answered)
        m_waiters.erase(it);
}

bool AdmissionGate::settle(Waiter &waiter, std::variant<limits::KeyLimiter::Permit, limits::Refusal> acquired)
{
    const AdmissionRequest &r = waiter.request;
    if (auto *refusal = std::get_if<limits::Refusal>(&acquired)) {
        const auto now = m_clock.now();
        if (now >= waiter.deadline) {
            refuse(waiter, ErrorReply{429, QStringLiteral("This API key has reached its rate or concurrency limit."),
                                      "key_rate_limited", {}, secondsUp(refusal->retryAfter)},
                   "key_rate_limited");
            return true;
        }
        // Wake when the window opens, or at the deadline; a released slot wakes us sooner.
        if (!waiter.timer) {
            waiter.timer = std::make_unique<QTimer>();
            waiter.timer->setSingleShot(true);
            const quint64 token = r.token;
            const QString keyName = r.key.name;
            connect(waiter.timer.get(), &QTimer::timeout, this, [this, token] {
                for (auto it = m_waiters.begin(); it != m_waiters.end(); ++it) {
                    if (it->request.token == token) {
                        if (tryOnce(*it))
                            m_waiters.erase(it);
                        return;
                    }
                }
            });
        }
        const auto untilDeadline = std::chrono::duration_cast<std::chrono::milliseconds>(waiter.deadline - now);
        waiter.timer->start(std::max<std::chrono::milliseconds>(std::chrono::milliseconds(1),
                                                                std::min(refusal->retryAfter, untilDeadline)));
        return false;
    }
    limits::KeyLimiter::Permit permit = std::get<limits::KeyLimiter::Permit>(std::move(acquired));

    std::optional<billing::Nanos> spendLimit;
    if (r.key.spendLimit)
        spendLimit = billing::fromCurrency(*r.key.spendLimit);
    auto admitted = m_state.ledger.tryAdmit(r.key.name, spendLimit, r.estimate);
    if (auto *refusal = std::get_if<billing::AdmissionRefusal>(&admitted);
        refusal && *refusal == billing::AdmissionRefusal::MoneyUnavailable) {
        // Shared mode, the database away: nothing reserved, so nothing may run (it could overspend).
        refuse(waiter, ErrorReply{503, QStringLiteral("The workspace database is unreachable, so the balance cannot be "
                                                      "checked. Retry shortly."),
                                  "database_unavailable", {}, 1},
               "database_unavailable");
        return true;
    }
    if (auto *refusal = std::get_if<billing::AdmissionRefusal>(&admitted)) {
        const bool balance = *refusal == billing::AdmissionRefusal::InsufficientBalance;
        refuse(waiter, ErrorReply{402, balance ? QStringLiteral("Insufficient balance. Top up at the dashboard.")
                                               : QStringLiteral("This API key has reached its spend limit."),
                                  balance ? "insufficient_balance" : "spend_limit_reached"},
               balance ? "insufficient_balance" : "spend_limit_reached");
        return true;  // the permit is released on return
    }
    AdmissionTicket ticket;
    ticket.permit = std::move(permit);
    ticket.reservation = std::get<billing::ReservationId>(admitted);
    ticket.waitedMs = std::chrono::duration_cast<std::chrono::milliseconds>(m_clock.now() - waiter.since).count();
    waiter.done(std::move(ticket));
    return true;
}

void AdmissionGate::refuse(Waiter &waiter, ErrorReply reply, const char *reason)
{
    ++m_state.refusals[reason];
    waiter.done(std::move(reply));
}

void AdmissionGate::wakeKey(const QString &keyName)
{
    // A waiter queued after this release tried after it too, so it saw the freed room already.
    const bool waits = std::any_of(m_waiters.begin(), m_waiters.end(),
                                   [&keyName](const Waiter &w) { return w.request.key.name == keyName; });
    if (waits)
        QMetaObject::invokeMethod(this, [this, keyName] { retryKey(keyName); }, Qt::QueuedConnection);
}

void AdmissionGate::retryKey(const QString &keyName)
{
    for (auto it = m_waiters.begin(); it != m_waiters.end(); ++it) {
        if (it->request.key.name != keyName)
            continue;
        // FIFO: only the key's first waiter may take the freed room.
        if (!it->asking && tryOnce(*it))
            m_waiters.erase(it);
        return;
    }
}

void AdmissionGate::cancel(quint64 token)
{
    m_waiters.remove_if([token](const Waiter &w) { return w.request.token == token; });
}

} // namespace sy::service
