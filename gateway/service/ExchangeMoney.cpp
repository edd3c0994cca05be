#include "service/ExchangeMoney.h"

#include "billing/Pricing.h"

namespace sy::service {

billing::Nanos estimateCharge(const Workspace &workspace, const ChatRequest &chat)
{
    if (const config::Model *primary = workspace.findModel(chat.chain.value(0)); primary && primary->free)
        return 0;
    std::vector<config::Price> prices;
    for (const QString &model : chat.chain) {
        for (const ChannelRoute &route : workspace.routesFor(model))
            prices.push_back(route.model->price);
    }
    return billing::estimateCharge(chat.promptCharacters, chat.maxOutputTokens, billing::highestPrice(prices));
}

bool ExchangeMoney::refusesPaidFallback(const Workspace &workspace, const QString &primaryModel,
                                        const QString &attemptModel) const
{
    if (!m_ledger.isMetered() || m_reservation == 0)
        return false;
    const config::Model *primary = workspace.findModel(primaryModel);
    const config::Model *model = workspace.findModel(attemptModel);
    if (!primary || !primary->free || (model && model->free))
        return false;
    return m_ledger.balance() - m_ledger.reservedInFlight() <= 0;
}

std::optional<billing::Nanos> ExchangeMoney::settle(const QByteArray &requestId, const PlannedAttempt &attempt,
                                                    const api::TokenUsage &usage, bool primaryIsFree)
{
    const billing::ReservationId reservation = std::exchange(m_reservation, 0);
    if (!reservation)
        return std::nullopt;
    if (!usage.known || primaryIsFree) {
        m_ledger.release(reservation);
        return std::nullopt;
    }
    billing::LedgerEntry charge;
    charge.requestId = QString::fromLatin1(requestId);
    charge.modelId = attempt.modelId;
    charge.channelId = attempt.channel->id;
    charge.promptTokens = usage.promptTokensTotal();
    charge.completionTokens = usage.outputTokens;
    charge.amount = billing::chargeFor(charge.promptTokens, charge.completionTokens, attempt.served->price);
    const billing::Nanos amount = charge.amount;
    if (amount == 0) {
        // A channel priced at zero (a local server) moves no money: no ledger entry, and so no
        // database commit on the request path (the request log still has its tokens).
        m_ledger.release(reservation);
        return amount;
    }
    if (m_ledger.settle(reservation, std::move(charge)))
        m_booked = m_ledger.lastBooked();
    return amount;
}

void ExchangeMoney::afterCharge(std::function<void()> then)
{
    if (m_booked == 0)
        return then();
    m_ledger.afterJournal(m_booked, std::move(then));
}

void ExchangeMoney::release()
{
    if (const billing::ReservationId reservation = std::exchange(m_reservation, 0))
        m_ledger.release(reservation);
}

} // namespace sy::service
