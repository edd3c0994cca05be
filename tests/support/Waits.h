#pragma once
// Bounded waits for tests that drive the Qt event loop. Never sleep on wall time: wait for a
// condition, with a limit, while processing events.
#include <chrono>
#include <functional>

namespace sy::test {

// Processes events until `done()` is true or `limit` passes. Returns done().
bool waitUntil(const std::function<bool()> &done,
               std::chrono::milliseconds limit = std::chrono::seconds(10));

// Processes events for `duration` (for "nothing more happens" checks).
void processEventsFor(std::chrono::milliseconds duration);

} // namespace sy::test
