#include "core/Clock.h"

namespace sy {

const SystemClock &SystemClock::instance()
{
    static const SystemClock clock;
    return clock;
}

} // namespace sy
