#pragma once
// AttemptReplies: what every attempt loop (chat, embeddings) says to the client about its route —
// the trace headers of an answer (SPEC §6) and the gateway's reply when no candidate answered
// (SPEC §4 "All failed", §3.6 every credential rate limited). Pure: no I/O.
#include "http/ResponseSink.h"
#include "service/AttemptPlan.h"
#include "service/AttemptTrace.h"
#include "service/ErrorReply.h"
#include "service/Workspace.h"

#include <chrono>

namespace sy::service {

// x-request-id, X-TsarRouter-Provider / -Model / -Attempts for the attempt that answered,
// x-lovely-queued-ms when the request waited for capacity (`queued` > 0), and X-Model-Deprecated
// + Sunset for a deprecated model.
http::HeaderList answerHeaders(const Workspace &workspace, const QByteArray &requestId, const PlannedAttempt &answered,
                               const AttemptTrace &trace, std::chrono::milliseconds queued);

// The reply when the plan ran out: 429 `upstream_rate_limited` when nothing was tried because
// every credential is rate limited upstream (`upstreamAttempts` == 0), else 502
// `all_providers_failed` naming `chain`; both carry the attempts (and the filtered channels) in
// error.metadata.
ErrorReply allFailedReply(const QStringList &chain, const AttemptPlan &plan, const AttemptTrace &trace,
                          int upstreamAttempts, Clock::TimePoint now);

} // namespace sy::service
