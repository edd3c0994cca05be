#pragma once
// The simulator's control endpoint, for tests, benchmarks and the demo (no auth; answers only
// loopback clients, others get 403):
//   GET    /_sim/rules   current rules and model lists, in the script's JSON shape
//   PUT    /_sim/rules   replaces every rule (and the model lists when given) with a script body
//   POST   /_sim/rules   adds one rule object, replacing the rule with the same provider+model
//   DELETE /_sim/rules   removes every rule
//   GET    /_sim/stats   SimStats::toJson()
//   POST   /_sim/reset   SimState::reset(): no rules, no counts, the random sequence restarted
// Thread: the front's thread.
#include "SimState.h"
#include "http/HttpFront.h"

namespace sy::sim {

// Registers the routes above on `front`; `state` must outlive it.
void installControlRoutes(http::HttpFront &front, SimState &state);

// The script JSON of the current state (what GET /_sim/rules answers).
QJsonObject stateToScriptJson(const SimState &state);

} // namespace sy::sim
