// Conversation stickiness (SPEC §3.5): which requests share a conversation key (session id, then
// `user`, then the leading messages up to the first user message, always within one gateway key
// and model), and the bounded memory of the channel that served each conversation: 1 h TTL
// stepped across with a FakeClock, capacity eviction of expired and then least recently used.
#include "routing/StickyConversations.h"

#include "support/FakeClock.h"

#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>

#include <chrono>
#include <string>
#include <vector>

namespace sy::routing {
namespace {

using namespace std::chrono_literals;

const QString kKeyName = QStringLiteral("team-key");
const QString kModel = QStringLiteral("gpt-4o");

QJsonObject message(const char *role, const char *content)
{
    return QJsonObject{{QStringLiteral("role"), QString::fromLatin1(role)},
                       {QStringLiteral("content"), QString::fromLatin1(content)}};
}

QJsonArray messages(std::initializer_list<QJsonObject> list)
{
    QJsonArray array;
    for (const QJsonObject &m : list)
        array.append(m);
    return array;
}

QByteArray keyOfMessages(const QJsonArray &msgs, const QString &model = kModel, const QString &keyName = kKeyName)
{
    return conversationKey(keyName, model, {}, {}, msgs);
}

// --- conversationKey --------------------------------------------------------------------------

TEST(ConversationKeyTest, LaterTurnsShareTheKeyOfTheOpening)
{
    const QJsonArray firstTurn = messages({message("system", "be brief"), message("user", "hi")});
    const QJsonArray thirdTurn = messages({message("system", "be brief"), message("user", "hi"),
                                           message("assistant", "hello"), message("user", "how are you?"),
                                           message("assistant", "fine"), message("user", "and now?")});
    EXPECT_EQ(keyOfMessages(firstTurn), keyOfMessages(thirdTurn));
    EXPECT_FALSE(keyOfMessages(firstTurn).isEmpty());
}

TEST(ConversationKeyTest, OpeningsThatDifferGiveDifferentKeys)
{
    const QByteArray base = keyOfMessages(messages({message("system", "be brief"), message("user", "hi")}));
    struct Row {
        const char *what;
        QJsonArray msgs;
    };
    const std::vector<Row> rows = {
        {"other system prompt", messages({message("system", "be verbose"), message("user", "hi")})},
        {"other first user message", messages({message("system", "be brief"), message("user", "hello")})},
        {"no system prompt", messages({message("user", "hi")})},
        {"extra message before the first user message",
         messages({message("system", "be brief"), message("assistant", "ready"), message("user", "hi")})},
        {"no user message at all", messages({message("system", "be brief")})},
    };
    for (const Row &row : rows) {
        SCOPED_TRACE(row.what);
        EXPECT_NE(keyOfMessages(row.msgs), base);
    }
}

TEST(ConversationKeyTest, WithoutAUserMessageEveryMessageCounts)
{
    EXPECT_NE(keyOfMessages(messages({message("system", "a")})),
              keyOfMessages(messages({message("system", "a"), message("assistant", "b")})));
}

TEST(ConversationKeyTest, FieldOrderInsideAMessageDoesNotMatter)
{
    QJsonArray reordered;
    reordered.append(QJsonObject{{QStringLiteral("content"), QStringLiteral("hi")},
                                 {QStringLiteral("role"), QStringLiteral("user")}});
    EXPECT_EQ(keyOfMessages(reordered), keyOfMessages(messages({message("user", "hi")})));
}

TEST(ConversationKeyTest, SessionIdIdentifiesTheConversationWhateverElseIsSent)
{
    const QByteArray a = conversationKey(kKeyName, kModel, "s-1", QStringLiteral("alice"),
                                         messages({message("user", "hi")}));
    const QByteArray b = conversationKey(kKeyName, kModel, "s-1", QStringLiteral("bob"),
                                         messages({message("user", "something else")}));
    const QByteArray other = conversationKey(kKeyName, kModel, "s-2", QStringLiteral("alice"),
                                             messages({message("user", "hi")}));
    EXPECT_EQ(a, b);
    EXPECT_NE(a, other);
}

TEST(ConversationKeyTest, UserIdentifiesTheConversationWithoutASessionId)
{
    const QByteArray a = conversationKey(kKeyName, kModel, {}, QStringLiteral("alice"),
                                         messages({message("user", "hi")}));
    const QByteArray b = conversationKey(kKeyName, kModel, {}, QStringLiteral("alice"),
                                         messages({message("user", "something else")}));
    const QByteArray bob = conversationKey(kKeyName, kModel, {}, QStringLiteral("bob"),
                                           messages({message("user", "hi")}));
    EXPECT_EQ(a, b);
    EXPECT_NE(a, bob);
}

TEST(ConversationKeyTest, SessionUserAndMessagesNeverCollideOnTheSameText)
{
    const QByteArray asSession = conversationKey(kKeyName, kModel, "abc", {}, {});
    const QByteArray asUser = conversationKey(kKeyName, kModel, {}, QStringLiteral("abc"), {});
    const QByteArray asMessages = conversationKey(kKeyName, kModel, {}, {}, {});
    EXPECT_NE(asSession, asUser);
    EXPECT_NE(asSession, asMessages);
    EXPECT_NE(asUser, asMessages);
}

TEST(ConversationKeyTest, KeysNeverCrossGatewayKeysOrModels)
{
    const QJsonArray msgs = messages({message("user", "hi")});
    struct Row {
        const char *what;
        QByteArray sessionId;
        QString user;
    };
    const std::vector<Row> rows = {
        {"by session", "s-1", {}},
        {"by user", {}, QStringLiteral("alice")},
        {"by messages", {}, {}},
    };
    for (const Row &row : rows) {
        SCOPED_TRACE(row.what);
        const QByteArray base = conversationKey(kKeyName, kModel, row.sessionId, row.user, msgs);
        EXPECT_EQ(conversationKey(kKeyName, kModel, row.sessionId, row.user, msgs), base);
        EXPECT_NE(conversationKey(QStringLiteral("other-key"), kModel, row.sessionId, row.user, msgs), base);
        EXPECT_NE(conversationKey(kKeyName, QStringLiteral("claude-3"), row.sessionId, row.user, msgs), base);
    }
}

// --- StickyConversations ----------------------------------------------------------------------

std::string channelOf(const StickyConversations &sticky, const QByteArray &conversation)
{
    return sticky.channelFor(conversation).toStdString();
}

QByteArray conv(int i)
{
    return QByteArray("conversation-") + QByteArray::number(i);
}

class StickyConversationsTest : public ::testing::Test {
protected:
    sy::test::FakeClock clock;
    StickyConversations sticky{clock};  // 1 h TTL, 50 000 entries
};

TEST_F(StickyConversationsTest, UnknownConversationHasNoChannel)
{
    EXPECT_EQ(channelOf(sticky, conv(1)), "");
    EXPECT_EQ(sticky.size(), 0);
}

TEST_F(StickyConversationsTest, RemembersTheLastChannelThatServed)
{
    sticky.remember(conv(1), QStringLiteral("openai-main"));
    sticky.remember(conv(2), QStringLiteral("azure"));
    EXPECT_EQ(channelOf(sticky, conv(1)), "openai-main");
    EXPECT_EQ(channelOf(sticky, conv(2)), "azure");
    sticky.remember(conv(1), QStringLiteral("openai-backup"));  // moved after a failover
    EXPECT_EQ(channelOf(sticky, conv(1)), "openai-backup");
    EXPECT_EQ(sticky.size(), 2);
}

TEST_F(StickyConversationsTest, ForgetsAConversationAfterAnHourWithoutUse)
{
    sticky.remember(conv(1), QStringLiteral("openai-main"));
    clock.advance(59min + 59'999ms);
    EXPECT_EQ(channelOf(sticky, conv(1)), "openai-main");
    clock.advance(1ms);  // exactly 1 h: expiry is *after* the TTL
    EXPECT_EQ(channelOf(sticky, conv(1)), "openai-main");
    clock.advance(1ms);
    EXPECT_EQ(channelOf(sticky, conv(1)), "");
}

TEST_F(StickyConversationsTest, LookingUpDoesNotRenewButServingAgainDoes)
{
    sticky.remember(conv(1), QStringLiteral("openai-main"));
    sticky.remember(conv(2), QStringLiteral("openai-main"));
    clock.advance(50min);
    EXPECT_EQ(channelOf(sticky, conv(1)), "openai-main");  // a look-up only
    sticky.remember(conv(2), QStringLiteral("openai-main"));
    clock.advance(50min);
    EXPECT_EQ(channelOf(sticky, conv(1)), "");
    EXPECT_EQ(channelOf(sticky, conv(2)), "openai-main");
    clock.advance(10min + 1ms);
    EXPECT_EQ(channelOf(sticky, conv(2)), "");
}

TEST_F(StickyConversationsTest, TtlIsConfigurable)
{
    StickyConversations shortLived(clock, 10s);
    shortLived.remember(conv(1), QStringLiteral("openai-main"));
    clock.advance(10s);
    EXPECT_EQ(channelOf(shortLived, conv(1)), "openai-main");
    clock.advance(1ms);
    EXPECT_EQ(channelOf(shortLived, conv(1)), "");
}

TEST_F(StickyConversationsTest, NeverHoldsMoreThanItsCapacity)
{
    StickyConversations small(clock, 1h, 8);
    for (int i = 0; i < 200; ++i) {
        small.remember(conv(i), QStringLiteral("ch"));
        clock.advance(1s);
        ASSERT_LE(small.size(), 8) << "after " << i + 1 << " conversations";
    }
    EXPECT_GT(small.size(), 0);
}

TEST_F(StickyConversationsTest, EvictionDropsExpiredEntriesFirst)
{
    StickyConversations small(clock, 1h, 3);
    small.remember(conv(1), QStringLiteral("old"));
    clock.advance(30min);
    small.remember(conv(2), QStringLiteral("b"));
    small.remember(conv(3), QStringLiteral("c"));
    clock.advance(30min + 1ms);  // conv(1) has expired, 2 and 3 have not
    small.remember(conv(4), QStringLiteral("d"));
    EXPECT_EQ(small.size(), 3);
    EXPECT_EQ(channelOf(small, conv(2)), "b");
    EXPECT_EQ(channelOf(small, conv(3)), "c");
    EXPECT_EQ(channelOf(small, conv(4)), "d");
}

TEST_F(StickyConversationsTest, EvictionDropsTheLeastRecentlyServedWhenNothingExpired)
{
    StickyConversations small(clock, 1h, 4);
    for (int i = 1; i <= 4; ++i) {
        small.remember(conv(i), QStringLiteral("ch-%1").arg(i));
        clock.advance(1s);
    }
    small.remember(conv(1), QStringLiteral("ch-1"));  // served again: now the most recent but one
    clock.advance(1s);
    small.remember(conv(5), QStringLiteral("ch-5"));
    EXPECT_LE(small.size(), 4);
    EXPECT_EQ(channelOf(small, conv(1)), "ch-1");
    EXPECT_EQ(channelOf(small, conv(5)), "ch-5");
    EXPECT_EQ(channelOf(small, conv(2)), "");  // the least recently served
}

// Whatever the capacity, the conversation just served is the one most likely to come back.
TEST_F(StickyConversationsTest, JustRememberedConversationSurvivesEviction)
{
    for (int capacity : {1, 2, 3, 4, 10}) {
        SCOPED_TRACE(testing::Message() << "capacity " << capacity);
        StickyConversations small(clock, 1h, capacity);
        for (int i = 0; i < 3 * capacity + 2; ++i) {
            clock.advance(1s);
            small.remember(conv(i), QStringLiteral("ch-%1").arg(i));
            if (channelOf(small, conv(i)) != QStringLiteral("ch-%1").arg(i).toStdString()) {
                ADD_FAILURE() << "conversation " << i << " forgotten right after remembering it";
                break;
            }
        }
    }
}

// A burst of new conversations in the same clock tick must not empty the map.
TEST_F(StickyConversationsTest, BurstInOneInstantKeepsTheNewestConversation)
{
    StickyConversations small(clock, 1h, 4);
    for (int i = 0; i < 5; ++i)
        small.remember(conv(i), QStringLiteral("ch-%1").arg(i));
    EXPECT_EQ(channelOf(small, conv(4)), "ch-4");
    EXPECT_GT(small.size(), 0);
}

} // namespace
} // namespace sy::routing
