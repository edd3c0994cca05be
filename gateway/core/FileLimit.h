#pragma once
// The process's open-file limit (RLIMIT_NOFILE) against the concurrency the gateway is
// configured for. Every request in flight holds two descriptors (the client's connection and the
// upstream's); the rest of the process (listening socket, database files, event loop, curl's
// cached connections) needs a reserve on top.
//
// Thread: call at start, before other threads open files.
#include <QString>
#include <optional>

namespace sy {

struct FileLimit {
    quint64 before = 0;     // soft limit found at start
    quint64 soft = 0;       // soft limit now
    quint64 hard = 0;       // the most the soft limit may be raised to without privileges
};

// Descriptors kept aside for everything that is not a request in flight.
inline constexpr quint64 kReservedFiles = 512;

// Raises the soft limit to the hard one (an unlimited hard limit means the kernel's nr_open).
// Never lowers it; on failure the limit is left as it was.
FileLimit raiseOpenFileLimit();

// About how many requests in flight `limit` allows.
quint64 concurrentRequestsWithin(const FileLimit &limit);

// What to log at start: a warning when `configuredConcurrency` requests in flight (the sum of
// the channels' max_concurrent; 0 = some channel is unlimited) need more descriptors than the
// limit gives, else a one-line note of the limit.
struct FileLimitReport {
    bool tooLow = false;
    QString text;
};
FileLimitReport describeFileLimit(const FileLimit &limit, quint64 configuredConcurrency);

} // namespace sy
