#pragma once
// SampleReservoir: a uniform random subset of at most `capacity` of the values offered to it
// (reservoir sampling, algorithm R), so one bucket of a busy channel holds bounded memory while
// its percentiles stay unbiased. Randomness comes from a caller-owned splitmix64 state, so runs
// are reproducible. Not thread-safe; owned by one MetricsWindow bucket.
#include <cstdint>
#include <vector>

namespace sy::metrics {

class SampleReservoir {
public:
    explicit SampleReservoir(int capacity) : m_capacity(capacity > 0 ? capacity : 1) {}

    // Offers one value; it is kept if there is room, else it replaces a random kept value with
    // probability capacity / seen.
    void offer(double value, std::uint64_t &randomState);
    // Forgets every value (the allocation is kept for reuse; it never exceeds the capacity).
    void clear();

    const std::vector<double> &values() const { return m_values; }
    std::uint64_t seenCount() const { return m_seen; }
    // How many offered values each kept value stands for (1 until the reservoir overflows).
    double weightPerValue() const
    {
        return m_values.empty() ? 0.0 : static_cast<double>(m_seen) / static_cast<double>(m_values.size());
    }

private:
    int m_capacity;
    std::uint64_t m_seen = 0;
    std::vector<double> m_values;
};

// splitmix64 step: small, fast and good enough for choosing reservoir slots.
std::uint64_t nextRandom(std::uint64_t &state);

} // namespace sy::metrics
