#pragma once
// FastHash128: a streaming, non-cryptographic 128-bit hash for keys that only need to tell
// inputs apart (conversation keys, caches) — never for secrets or anything an attacker gains
// from colliding. Two 64-bit lanes, each folding 8 bytes per 64×64→128-bit multiply, so a long
// input costs about a multiply per 4 bytes; the result depends on the bytes and their total
// length, not on how they were split across add() calls.
//
// Thread: a value type; one instance per thread at a time.
#include <QByteArray>
#include <QByteArrayView>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sy {

class FastHash128 {
public:
    void add(const void *data, std::size_t size);
    void add(QByteArrayView bytes) { add(bytes.data(), std::size_t(bytes.size())); }
    template <class T>
    void addValue(const T &value)  // trivially copyable values, by their bytes
    {
        static_assert(std::is_trivially_copyable_v<T>);
        add(&value, sizeof value);
    }
    // 16 bytes. The hasher may be used no more after this.
    QByteArray result();

private:
    void mixWord(std::uint64_t word);

    std::uint64_t m_a = 0x243F6A8885A308D3ull;
    std::uint64_t m_b = 0x13198A2E03707344ull;
    std::uint64_t m_length = 0;
    unsigned char m_tail[8] = {};
    std::size_t m_tailSize = 0;
};

} // namespace sy
