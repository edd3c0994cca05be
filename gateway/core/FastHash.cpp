#include "core/FastHash.h"

#include <algorithm>

namespace sy {

namespace {

// GCC's 128-bit integer (x86-64 multiplies 64 × 64 → 128 in one instruction); __extension__
// keeps -Wpedantic quiet about it.
__extension__ typedef unsigned __int128 Uint128;

std::uint64_t foldMultiply(std::uint64_t x, std::uint64_t y)
{
    const Uint128 product = static_cast<Uint128>(x) * y;
    return std::uint64_t(product) ^ std::uint64_t(product >> 64);
}

constexpr std::uint64_t kLaneA = 0xA0761D6478BD642Full;
constexpr std::uint64_t kLaneB = 0xE7037ED1A0B428DBull;
constexpr std::uint64_t kFinal = 0x8EBC6AF09C88C6E3ull;

} // namespace

void FastHash128::mixWord(std::uint64_t word)
{
    m_a = foldMultiply(m_a ^ word, kLaneA);
    m_b = foldMultiply(m_b + word, kLaneB) + m_a;
}

void FastHash128::add(const void *data, std::size_t size)
{
    const auto *bytes = static_cast<const unsigned char *>(data);
    m_length += size;
    if (m_tailSize > 0) {
        const std::size_t take = std::min(size, sizeof m_tail - m_tailSize);
        std::memcpy(m_tail + m_tailSize, bytes, take);
        m_tailSize += take;
        bytes += take;
        size -= take;
        if (m_tailSize < sizeof m_tail)
            return;
        std::uint64_t word;
        std::memcpy(&word, m_tail, sizeof word);
        mixWord(word);
        m_tailSize = 0;
    }
    for (; size >= 8; bytes += 8, size -= 8) {
        std::uint64_t word;
        std::memcpy(&word, bytes, sizeof word);
        mixWord(word);
    }
    std::memcpy(m_tail, bytes, size);
    m_tailSize = size;
}

QByteArray FastHash128::result()
{
    std::uint64_t word = 0;
    std::memcpy(&word, m_tail, m_tailSize);
    mixWord(word ^ (std::uint64_t(m_tailSize) << 56));
    const std::uint64_t a = foldMultiply(m_a ^ m_length, kFinal) ^ m_b;
    const std::uint64_t b = foldMultiply(m_b ^ (m_length * kLaneA), kFinal ^ kLaneB) ^ m_a;
    QByteArray out(16, Qt::Uninitialized);
    std::memcpy(out.data(), &a, 8);
    std::memcpy(out.data() + 8, &b, 8);
    return out;
}

} // namespace sy
