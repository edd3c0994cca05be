#include "core/RequestId.h"

#include <QRandomGenerator>

#include <chrono>

namespace sy {

namespace {

// xoshiro256** seeded once per thread from the system generator: ids only need to be unique,
// not secret, and QRandomGenerator::system() costs a getrandom() syscall on every call.
struct IdGenerator {
    quint64 s[4];

    IdGenerator()
    {
        do
            QRandomGenerator::system()->fillRange(s);
        while ((s[0] | s[1] | s[2] | s[3]) == 0);  // the one state xoshiro cannot leave
    }

    static quint64 rotl(quint64 x, int k) { return (x << k) | (x >> (64 - k)); }

    quint64 next()
    {
        const quint64 result = rotl(s[1] * 5, 7) * 9;
        const quint64 t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return result;
    }
};

void appendHex(char *dst, quint64 value, int digits)
{
    static constexpr char kHex[] = "0123456789abcdef";
    for (int i = digits - 1; i >= 0; --i, value >>= 4)
        dst[i] = kHex[value & 0xf];
}

} // namespace

QByteArray newRequestId()
{
    thread_local IdGenerator generator;
    const auto sinceEpoch = std::chrono::system_clock::now().time_since_epoch();
    const auto ms = quint64(std::chrono::duration_cast<std::chrono::milliseconds>(sinceEpoch).count());
    const quint64 high = generator.next();
    const quint64 low = generator.next();
    // "req_" + 12 hex digits of time (48 bits: until the year 10889) + 16 + 4 random ones.
    QByteArray id(4 + 12 + 16 + 4, Qt::Uninitialized);
    char *out = id.data();
    out[0] = 'r';
    out[1] = 'e';
    out[2] = 'q';
    out[3] = '_';
    appendHex(out + 4, ms, 12);
    appendHex(out + 16, high, 16);
    appendHex(out + 32, low & 0xffff, 4);
    return id;
}

} // namespace sy
