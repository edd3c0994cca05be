#include "upstream/TransferDeadlines.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace sy::upstream::detail {

TransferDeadlines::TransferDeadlines(QObject *context, std::function<void()> onDue)
    : timer_(context)
{
    timer_.setSingleShot(true);
    // Coarse timers may fire 5% late: on a 60 s idle timeout that is three seconds.
    timer_.setTimerType(Qt::PreciseTimer);
    QObject::connect(&timer_, &QTimer::timeout, context, std::move(onDue));
    refresh();
}

qint64 TransferDeadlines::refresh()
{
    using namespace std::chrono;
    nowMs_ = duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
    return nowMs_;
}

void TransferDeadlines::arm(qint64 atMs)
{
    if (timer_.isActive() && atMs >= armedAtMs_)
        return;
    armedAtMs_ = atMs;
    timer_.start(int(std::clamp<qint64>(atMs - nowMs_, 0, std::numeric_limits<int>::max())));
}

} // namespace sy::upstream::detail
