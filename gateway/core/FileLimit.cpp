#include "core/FileLimit.h"

#include <QFile>
#include <sys/resource.h>

namespace sy {

namespace {

quint64 kernelMaximum()
{
    QFile file(QStringLiteral("/proc/sys/fs/nr_open"));
    if (file.open(QIODevice::ReadOnly)) {
        bool ok = false;
        const quint64 value = file.readAll().trimmed().toULongLong(&ok);
        if (ok && value > 0)
            return value;
    }
    return 1024 * 1024;  // the kernel's default nr_open
}

} // namespace

FileLimit raiseOpenFileLimit()
{
    FileLimit result;
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return result;
    result.before = result.soft = quint64(limit.rlim_cur);
    result.hard = limit.rlim_max == RLIM_INFINITY ? kernelMaximum() : quint64(limit.rlim_max);
    if (result.soft >= result.hard)
        return result;
    rlimit raised = limit;
    raised.rlim_cur = rlim_t(result.hard);
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0)
        result.soft = result.hard;
    return result;
}

quint64 concurrentRequestsWithin(const FileLimit &limit)
{
    return limit.soft > kReservedFiles ? (limit.soft - kReservedFiles) / 2 : 0;
}

FileLimitReport describeFileLimit(const FileLimit &limit, quint64 configuredConcurrency)
{
    const quint64 room = concurrentRequestsWithin(limit);
    const QString found = limit.before == limit.soft
        ? QStringLiteral("open-file limit %1").arg(limit.soft)
        : QStringLiteral("open-file limit raised from %1 to %2").arg(limit.before).arg(limit.soft);
    if (configuredConcurrency > 0 && configuredConcurrency > room) {
        return {true, QStringLiteral("%1 is too low for the configured concurrency: the channels' max_concurrent add up "
                                     "to %2 requests in flight, which need about %3 open files (2 per request + %4); "
                                     "only about %5 requests fit. Raise the hard limit (ulimit -Hn, or LimitNOFILE= "
                                     "in the systemd unit) or lower max_concurrent.")
                          .arg(found)
                          .arg(configuredConcurrency)
                          .arg(configuredConcurrency * 2 + kReservedFiles)
                          .arg(kReservedFiles)
                          .arg(room)};
    }
    return {false, QStringLiteral("%1: room for about %2 requests in flight").arg(found).arg(room)};
}

} // namespace sy
