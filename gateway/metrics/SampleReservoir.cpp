#include "metrics/SampleReservoir.h"

namespace sy::metrics {

std::uint64_t nextRandom(std::uint64_t &state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void SampleReservoir::offer(double value, std::uint64_t &randomState)
{
    ++m_seen;
    if (m_values.size() < static_cast<std::size_t>(m_capacity)) {
        m_values.push_back(value);
        return;
    }
    // Algorithm R: the seen-th value replaces slot j when j, uniform in [0, seen), is a slot.
    // The modulo bias is at most seen / 2^64, far below anything a percentile can show.
    const std::uint64_t slot = nextRandom(randomState) % m_seen;
    if (slot < static_cast<std::uint64_t>(m_capacity))
        m_values[static_cast<std::size_t>(slot)] = value;
}

void SampleReservoir::clear()
{
    m_seen = 0;
    m_values.clear();
}

} // namespace sy::metrics
