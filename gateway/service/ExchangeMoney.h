#pragma once
// ExchangeMoney: the money side of one request (SPEC §8): the estimate admission reserves, the
// refusal of a free model's paid fallback once the balance is used up, and the settlement —
// exactly one charge at the answering channel's price for an answered request, a release of the
// reservation for anything else.
//
// Thread: the gateway thread.
#include "api/Canonical.h"
#include "billing/Ledger.h"
#include "service/AttemptPlan.h"
#include "service/ChatRequest.h"
#include "service/Workspace.h"

#include <functional>
#include <optional>

namespace sy::service {

// What admission reserves for `request`: its prompt's size and its output limit at the highest
// price of any channel its chain may reach; nothing for a free primary.
billing::Nanos estimateCharge(const Workspace &workspace, const ChatRequest &request);

class ExchangeMoney {
public:
    ExchangeMoney(billing::Ledger &ledger, billing::ReservationId reservation)
        : m_ledger(ledger), m_reservation(reservation) {}
    // Destroyed unsettled (the gateway shutting down): nothing was charged.
    ~ExchangeMoney() { release(); }

    // A free primary reserves nothing at admission; if its chain reaches a paid model after the
    // balance ran out meanwhile, that attempt is refused for money (SPEC §6 status).
    bool refusesPaidFallback(const Workspace &workspace, const QString &primaryModel, const QString &attemptModel) const;

    // Books the answered attempt's charge (nullopt usage or a free primary: no charge; a charge of
    // zero, at a zero price, books nothing) and returns the amount charged; releases the
    // reservation in every other case. Once; later calls do nothing.
    std::optional<billing::Nanos> settle(const QByteArray &requestId, const PlannedAttempt &attempt,
                                         const api::TokenUsage &usage, bool primaryIsFree);
    void release();
    // Runs `then` once the charge settle() booked was answered by the ledger's journal
    // (Ledger::afterJournal): at once when nothing was booked.
    void afterCharge(std::function<void()> then);

private:
    billing::Ledger &m_ledger;
    billing::ReservationId m_reservation = 0;
    quint64 m_booked = 0;  // the ledger sequence of the charge settle() booked; 0: none
};

} // namespace sy::service
