#include "storage/BackgroundThread.h"

#if defined(__linux__)
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#endif

namespace sy::storage {

#if defined(__linux__)
namespace {
constexpr int kLowerNiceBy = 10;
} // namespace
#endif

bool lowerCurrentThreadPriority()
{
#if defined(__linux__)
    // setpriority with a thread id sets that thread's nice value only (Linux's per-thread nice).
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, tid);
    if (nice == -1 && errno != 0)
        return false;
    return setpriority(PRIO_PROCESS, tid, std::min(nice + kLowerNiceBy, 19)) == 0;
#else
    return false;
#endif
}

bool nameCurrentThread(const char *name)
{
#if defined(__linux__)
    char shortName[16] = {};
    for (int i = 0; i < 15 && name[i]; ++i)
        shortName[i] = name[i];
    return pthread_setname_np(pthread_self(), shortName) == 0;
#else
    (void)name;
    return false;
#endif
}

} // namespace sy::storage
