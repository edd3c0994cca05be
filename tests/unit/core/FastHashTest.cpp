#include "core/FastHash.h"

#include <gtest/gtest.h>

#include <QSet>

namespace sy::test {
namespace {

QByteArray hashOf(QByteArrayView bytes)
{
    FastHash128 hash;
    hash.add(bytes);
    return hash.result();
}

TEST(FastHashTest, TheResultDoesNotDependOnHowTheBytesWereSplit)
{
    const QByteArray text = "The quick brown fox jumps over the lazy dog, twice over for length.";
    const QByteArray whole = hashOf(text);
    EXPECT_EQ(whole.size(), 16);
    for (qsizetype cut = 0; cut <= text.size(); ++cut) {
        for (qsizetype second = cut; second <= text.size(); second += 5) {
            FastHash128 hash;
            hash.add(QByteArrayView(text).first(cut));
            hash.add(QByteArrayView(text).sliced(cut, second - cut));
            hash.add(QByteArrayView(text).sliced(second));
            ASSERT_EQ(hash.result(), whole) << "cuts at " << cut << " and " << second;
        }
    }
}

TEST(FastHashTest, NearbyInputsGiveDistinctResults)
{
    // Every prefix of a run of zero bytes (same bytes, other lengths) and every single-bit flip
    // of a 64-byte block: all distinct.
    QSet<QByteArray> seen;
    const QByteArray zeros(64, '\0');
    for (qsizetype length = 0; length <= zeros.size(); ++length)
        seen.insert(hashOf(QByteArrayView(zeros).first(length)));
    EXPECT_EQ(seen.size(), 65);
    for (int bit = 0; bit < 64 * 8; ++bit) {
        QByteArray flipped = zeros;
        flipped[bit / 8] = char(1 << (bit % 8));
        seen.insert(hashOf(flipped));
    }
    EXPECT_EQ(seen.size(), 65 + 64 * 8);
}

} // namespace
} // namespace sy::test
