#pragma once
// BackgroundThread: how the store's threads ask the scheduler to let the gateway thread go first.
//
// They run in the gateway's process, so on the cores the gateway thread runs on (one core when
// the process is pinned, as bench/run and bench/routing pin it). What each may lower depends on
// who waits for it (docs/benchmarks/routing.md, "2026-12-02, the probe's connections and who
// holds the gateway's core"):
//  - the checkpoint thread: nobody waits for a checkpoint, so it runs ten nice steps lower
//    (lowerCurrentThreadPriority), and still gets about a tenth of a contended core, enough to
//    keep the WAL bounded at saturation (SCHED_IDLE would not: a busy core all but starves it);
//  - the SQLite writer keeps the normal priority: at the gateway's full rate it needs a larger
//    share of the core than a lowered thread gets (the request log it writes would fall behind,
//    and the gateway then refuses requests), and when the ledger log cannot be written every
//    charged answer waits for its commit.
//
// Thread: each function applies to the calling thread only. Linux only; elsewhere (and when the
// system refuses) they do nothing and return false.
namespace sy::storage {

// Raises the calling thread's nice value by 10 (up to 19), relative to its own, so a gateway
// started with `nice` keeps its offset. Returns whether it was applied.
bool lowerCurrentThreadPriority();

// Names the calling thread for ps, top and perf (at most 15 bytes are kept). Returns whether the
// system took it.
bool nameCurrentThread(const char *name);

} // namespace sy::storage
