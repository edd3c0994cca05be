// HttpTypes: the lower-cased header names every request and upstream answer is stored with.
#include "http/HttpTypes.h"

#include <gtest/gtest.h>
#include <QRandomGenerator>

namespace sy::http {
namespace {

TEST(HeaderNameTest, EveryNameComesBackInLowerCaseWhateverItsSpellingOrLength)
{
    QRandomGenerator random(15);
    const QByteArray alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.!#$%&'*+^`|~";
    const QList<QByteArray> known = {"Content-Type", "AUTHORIZATION", "x-api-key", "Anthropic-Version",
                                     "X-Stainless-Package-Version", "Host", "Date", "retry-after"};
    for (int i = 0; i < 20000; ++i) {
        QByteArray name;
        if (i % 4 == 0) {
            name = known[random.bounded(int(known.size()))];
        } else {
            const int size = random.bounded(1, 48);  // shorter and longer than the inline buffer
            for (int c = 0; c < size; ++c)
                name += alphabet[random.bounded(int(alphabet.size()))];
        }
        // A name the table knows, spelt in a random mix of cases.
        if (i % 8 == 0) {
            for (char &c : name)
                c = random.bounded(2) ? char(QChar::toUpper(uchar(c))) : char(QChar::toLower(uchar(c)));
        }
        ASSERT_EQ(lowerCaseHeaderName(name), name.toLower()) << name.constData();
    }
    EXPECT_EQ(lowerCaseHeaderName(""), QByteArray());
    EXPECT_EQ(lowerCaseHeaderName("X-Ä"), QByteArray("x-\xc3\x84"));  // non-ASCII bytes unchanged
    EXPECT_EQ(lowerCaseHeaderName("host2"), QByteArray("host2"));   // a known name's prefix is not it
    EXPECT_EQ(lowerCaseHeaderName("hos"), QByteArray("hos"));
}

TEST(HeaderNameTest, CommonNamesShareOneStaticTextAndOthersAreCopies)
{
    const QByteArray first = lowerCaseHeaderName("Content-Type");
    const QByteArray second = lowerCaseHeaderName("content-TYPE");
    EXPECT_EQ(first, "content-type");
    EXPECT_EQ(first.constData(), second.constData());  // no copy of its own
    const QByteArray custom = lowerCaseHeaderName("X-Custom-Header");
    const QByteArray again = lowerCaseHeaderName("X-Custom-Header");
    EXPECT_EQ(custom, "x-custom-header");
    EXPECT_NE(custom.constData(), again.constData());
    // A shared name is still an ordinary value: changing one copy leaves the table's text alone.
    QByteArray changed = lowerCaseHeaderName("Host");
    changed += "-x";
    EXPECT_EQ(lowerCaseHeaderName("HOST"), "host");
}

} // namespace
} // namespace sy::http
