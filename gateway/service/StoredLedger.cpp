#include "service/StoredLedger.h"

namespace sy::service {

storage::StoredLedgerEntry toStored(const billing::LedgerEntry &e)
{
    storage::StoredLedgerEntry s;
    s.sequence = e.sequence;
    s.at = e.at;
    s.kind = QString::fromLatin1(e.kind == billing::LedgerEntry::Kind::Charge ? storage::kLedgerCharge : storage::kLedgerTopUp);
    s.requestId = e.requestId;
    s.keyName = e.keyName;
    s.modelId = e.modelId;
    s.channelId = e.channelId;
    s.promptTokens = e.promptTokens;
    s.completionTokens = e.completionTokens;
    s.amountNanos = e.amount;
    s.note = e.note;
    s.reservation = e.reservation;
    return s;
}

billing::LedgerEntry fromStored(const storage::StoredLedgerEntry &s)
{
    billing::LedgerEntry e;
    e.sequence = s.sequence;
    e.at = s.at;
    e.kind = s.kind == QLatin1String(storage::kLedgerCharge) ? billing::LedgerEntry::Kind::Charge : billing::LedgerEntry::Kind::TopUp;
    e.requestId = s.requestId;
    e.keyName = s.keyName;
    e.modelId = s.modelId;
    e.channelId = s.channelId;
    e.promptTokens = s.promptTokens;
    e.completionTokens = s.completionTokens;
    e.amount = s.amountNanos;
    e.note = s.note;
    return e;
}

} // namespace sy::service
