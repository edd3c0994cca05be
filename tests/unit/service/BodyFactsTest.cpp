// BodyFacts: scanChatFacts() reads a Chat Completions body from its bytes (simdjson) and must give
// exactly what factsOf() gives from Qt's parse of the same bytes, or give up. Random bodies full
// of what the two readers could disagree on (repeated keys, key order, escapes, surrogate pairs,
// -0, integers past 2^53, content arrays, image parts), then the cases the scan leaves to Qt, and
// the same-format path that never builds the QJsonObject.
#include "service/BodyFacts.h"
#include "service/ChatRequest.h"

#include "ConfigBuilders.h"
#include "routing/StickyConversations.h"

#include <QJsonDocument>
#include <gtest/gtest.h>
#include <random>

namespace sy::service {
namespace {

class BodyWriter {
public:
    explicit BodyWriter(unsigned seed)
        : m_rng(seed)
    {
    }

    QByteArray body()
    {
        QList<QByteArray> members;
        if (chance(8))
            members << "\"model\":" + pick<QByteArray>({"\"alpha\"", "\"\"", "null", "7", "\"beta:nitro\"", "[\"x\"]"});
        if (chance(3))
            members << "\"models\":" + pick<QByteArray>({"[\"beta\",\"gamma\"]", "[1,\"beta\"]", "[]", "null", "\"beta\"", "[\"alpha\",null,\"gamma\"]"});
        if (chance(9))
            members << "\"messages\":" + (chance(9) ? messages() : pick<QByteArray>({"[]", "null", "{}", "\"hi\""}));
        if (chance(4))
            members << "\"stream\":" + pick<QByteArray>({"true", "false", "null", "\"yes\"", "1"});
        if (chance(3))
            members << "\"stream_options\":" + pick<QByteArray>({R"({"include_usage":true})", R"({"include_usage":false})",
                                                                   R"({"include_usage":1})", R"({"include_usage":false,"include_usage":true})",
                                                                   R"({"include_usage":true,"include_usage":false})", "null", "[]"});
        if (chance(3))
            members << "\"user\":" + pick<QByteArray>({"\"alice\"", "\"\"", "42", "null", "\"\\u00e9l\\u00e8ve \\ud83d\\ude00\""});
        if (chance(3))
            members << "\"max_tokens\":" + number();
        if (chance(3))
            members << "\"max_completion_tokens\":" + pick<QByteArray>({"0", "-3", "128", "\"64\"", "1e3", "2.5", "null"});
        if (chance(3))
            members << "\"system\":" + pick<QByteArray>({"\"be brief\"", "[{\"type\":\"text\",\"text\":\"be brief\"}]", "null", "3"});
        if (chance(3))
            members << "\"temperature\":" + number() << "\"n\":" + number();
        std::shuffle(members.begin(), members.end(), m_rng);
        return "{" + members.join(space()) + "}";
    }

private:
    bool chance(int inTen) { return int(m_rng() % 10) < inTen; }
    template <typename T>
    T pick(std::initializer_list<T> items)
    {
        return *(items.begin() + m_rng() % items.size());
    }
    QByteArray space() { return pick<QByteArray>({",", ",", ", ", " ,\n "}); }

    QByteArray number()
    {
        return pick<QByteArray>({"0", "-0", "-0.0", "1", "-17", "3.25", "1e3", "9007199254740993", "18446744073709551615",
                                 "2.5e-5", "123456789012345678", "1E2", "0.1"});
    }

    QByteArray text()
    {
        QByteArray out = "\"";
        const int pieces = int(m_rng() % 5);
        for (int i = 0; i < pieces; ++i)
            out += pick<QByteArray>({"hello", " ", "\\n", "\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00", "\xc3\xbc", "\xe4\xb8\xad",
                                     "\xf0\x9f\x98\x80", "/", "\\/", "\\t", "\\u0000"});
        return out + "\"";
    }

    QByteArray value(int depth)
    {
        switch (depth > 2 ? m_rng() % 4 : m_rng() % 6) {
        case 0: return text();
        case 1: return number();
        case 2: return pick<QByteArray>({"true", "false"});
        case 3: return "null";
        case 4: {
            QList<QByteArray> items;
            for (int i = int(m_rng() % 4); i > 0; --i)
                items << value(depth + 1);
            return "[" + items.join(space()) + "]";
        }
        default: {
            QList<QByteArray> members;
            for (int i = int(m_rng() % 4); i > 0; --i)
                members << key() + ":" + value(depth + 1);
            return "{" + members.join(space()) + "}";
        }
        }
    }

    QByteArray key()
    {
        return pick<QByteArray>({"\"a\"", "\"B\"", "\"_z\"", "\"id\"", "\"name\"", "\"type\"", "\"text\"", "\"url\"",
                                 "\"a\"", "\"\\u0061b\""});
    }

    QByteArray part()
    {
        return pick<QByteArray>({R"({"type":"text","text":"look"})", R"({"type":"image_url","image_url":{"url":"data:x"}})",
                                 R"({"text":"x","type":"input_image"})", R"({"inlineData":{"mimeType":"image/png","data":"AA"}})",
                                 R"({"inline_data":{"mime_type":"image/jpeg"}})", R"({"fileData":{"mimeType":7,"mime_type":"image/gif"}})",
                                 R"({"file_data":{"mimeType":"text/plain"}})", R"({"inlineData":{"mimeType":"imagery"}})", R"({"type":"image","type":"text"})",
                                 R"({"type":"text","type":"image"})", "\"plain\"", "3"});
    }

    QByteArray message()
    {
        QList<QByteArray> members;
        members << "\"role\":" + pick<QByteArray>({"\"system\"", "\"user\"", "\"assistant\"", "\"tool\"", "\"user\"", "7"});
        const int content = int(m_rng() % 6);
        if (content < 3) {
            members << "\"content\":" + text();
        } else if (content < 5) {
            QList<QByteArray> parts;
            for (int i = int(m_rng() % 3) + 1; i > 0; --i)
                parts << part();
            members << "\"content\":[" + parts.join(",") + "]";
        } else {
            members << "\"content\":" + pick<QByteArray>({"null", "5", "{\"x\":1}"});
        }
        if (chance(2))
            members << "\"parts\":[" + part() + "]";
        if (chance(3))
            members << key() + ":" + value(1);
        if (chance(1))
            members << "\"role\":\"user\"";   // repeated: the last one counts
        std::shuffle(members.begin(), members.end(), m_rng);
        return "{" + members.join(space()) + "}";
    }

    QByteArray messages()
    {
        QList<QByteArray> items;
        for (int i = int(m_rng() % 5); i >= 0; --i)
            items << (chance(9) ? message() : value(1));
        return "[" + items.join(space()) + "]";
    }

    std::mt19937 m_rng;
};

void expectSameFacts(const BodyFacts &scanned, const BodyFacts &parsed, const QByteArray &raw)
{
    SCOPED_TRACE(raw.toStdString());
    EXPECT_EQ(scanned.model, parsed.model);
    EXPECT_EQ(scanned.modelText, parsed.modelText);
    EXPECT_EQ(scanned.models, parsed.models);
    EXPECT_EQ(scanned.modelsItems, parsed.modelsItems);
    EXPECT_EQ(scanned.turnsUsable, parsed.turnsUsable);
    EXPECT_EQ(scanned.stream, parsed.stream);
    EXPECT_EQ(scanned.streamValue, parsed.streamValue);
    EXPECT_EQ(scanned.includeUsage, parsed.includeUsage);
    EXPECT_EQ(scanned.user, parsed.user);
    EXPECT_EQ(scanned.hasProvider, parsed.hasProvider);
    EXPECT_EQ(scanned.needsVision, parsed.needsVision);
    if (scanned.promptCharacters)
        EXPECT_EQ(scanned.promptCharacters, parsed.promptCharacters);
    EXPECT_EQ(scanned.maxOutputTokens, parsed.maxOutputTokens);
    EXPECT_EQ(scanned.turnsDigest, parsed.turnsDigest);
}

BodyFacts parsedFacts(const QByteArray &raw)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(raw, &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << raw.toStdString();
    return factsOf(document.object(), api::Format::OpenAiChat);
}

TEST(BodyFactsTest, TheScanReadsWhatQtsParseReadsOnRandomBodies)
{
    BodyWriter writer(20261207);
    int scanned = 0;
    int withCharacters = 0;
    constexpr int kBodies = 20000;
    for (int i = 0; i < kBodies; ++i) {
        const QByteArray raw = writer.body();
        const std::optional<BodyFacts> scan = scanChatFacts(raw);
        if (!scan)
            continue;
        ++scanned;
        withCharacters += scan->promptCharacters.has_value();
        expectSameFacts(*scan, parsedFacts(raw), raw);
        if (HasFailure())
            return;
    }
    // The bodies hold nothing the scan must give up on but repeated keys inside turns' objects
    // (which it follows) and "\u0061b" keys (ASCII once decoded): nearly all are scanned.
    EXPECT_GT(scanned, kBodies * 9 / 10);
    EXPECT_GT(withCharacters, kBodies / 4);
}

TEST(BodyFactsTest, WhatQtWouldReadOtherwiseIsLeftToQt)
{
    const QByteArray cases[] = {
        R"({"model":"a","messages":[],"provider":{"order":["x"]}})",           // provider: its errors name fields
        R"({"model":"a","model":"b","messages":[{"role":"user","content":"x"}]})", // a repeated top-level key
        "\xef\xbb\xbf{\"model\":\"a\"}",                                          // a byte order mark Qt skips
        "{\"model\":\"a\",\"user\":\"tab\there\"}",                               // a control character Qt lets through
        R"({"model":"a","user":"\ud800"})",                                       // a lone surrogate
        R"({"model":"a","messages":[{"r\u00f4le":"user","content":"x"}]})",      // a non-ASCII key in a turn
        R"({"model":"a","n":18446744073709551616})",                              // an integer past 64 bits
        R"(["not an object"])",
        R"({"model":"a",})",
        "",
    };
    for (const QByteArray &raw : cases)
        EXPECT_FALSE(scanChatFacts(raw)) << raw.toStdString();
}

TEST(BodyFactsTest, ABodyLargerThanTheKeptParserIsScannedToo)
{
    // Past the size the thread's parser keeps buffers for, a parser of its own reads it.
    const QByteArray content(400 * 1024, 'x');
    const QByteArray raw = R"({"model":"alpha","messages":[{"role":"user","content":")" + content + R"("}]})";
    const std::optional<BodyFacts> scan = scanChatFacts(raw);
    ASSERT_TRUE(scan);
    expectSameFacts(*scan, parsedFacts(raw), raw.first(64));
    EXPECT_EQ(scan->promptCharacters, content.size());
    // And the small ones after it still are.
    EXPECT_TRUE(scanChatFacts(R"({"model":"alpha","messages":[{"role":"user","content":"hi"}]})"));
}

TEST(BodyFactsTest, TheDigestIsTheConversationKeysOwn)
{
    const QByteArray raw = R"({"model":"a","messages":[{"role":"system","content":"be brief","name":"s"},)"
                           R"({"content":[{"type":"text","text":"hi \u00e9 \ud83d\ude00"}],"role":"user"},)"
                           R"({"role":"assistant","content":"hello"}]})";
    const std::optional<BodyFacts> scan = scanChatFacts(raw);
    ASSERT_TRUE(scan);
    const QJsonArray turns = QJsonDocument::fromJson(raw).object().value("messages").toArray();
    EXPECT_EQ(scan->turnsDigest, routing::leadingTurnsDigest(turns));
    EXPECT_EQ(routing::conversationKeyFromDigest("key", "a", {}, {}, scan->turnsDigest),
              routing::conversationKey("key", "a", {}, {}, turns));
    // Only the turns up to the first user message count.
    const QByteArray later = R"({"model":"a","messages":[{"role":"system","content":"be brief","name":"s"},)"
                             R"({"content":[{"type":"text","text":"hi \u00e9 \ud83d\ude00"}],"role":"user"},)"
                             R"({"role":"assistant","content":"something else"},{"role":"user","content":"more"}]})";
    EXPECT_EQ(scanChatFacts(later)->turnsDigest, scan->turnsDigest);
}

TEST(BodyFactsTest, TheSameFormatPathNeverBuildsTheObject)
{
    config::Config cfg;
    cfg.models = {builders::model("alpha")};
    const Workspace ws(cfg);
    const QByteArray raw = R"({"model":"alpha","stream":true,"messages":[{"role":"user","content":"hi"}],"max_tokens":64})";
    auto parsed = parseChatRequest(raw, ws, QDate(2025, 6, 1));
    ASSERT_TRUE(std::holds_alternative<ChatRequest>(parsed));
    const ChatRequest &chat = std::get<ChatRequest>(parsed);
    EXPECT_FALSE(chat.body.isParsed());
    EXPECT_TRUE(chat.stream);
    EXPECT_EQ(chat.promptCharacters, 2);
    EXPECT_EQ(chat.maxOutputTokens, 64);
    // Asked for, it is there, and every copy shares it.
    const api::ClientRequest client = chat.clientRequest();
    EXPECT_EQ(client.body.value("model").toString(), "alpha");
    EXPECT_TRUE(chat.body.isParsed());

    // Another format parses with Qt, as before.
    const QByteArray anthropic = R"({"model":"alpha","max_tokens":64,"messages":[{"role":"user","content":"hi"}]})";
    auto other = parseChatRequest(anthropic, ws, QDate(2025, 6, 1), api::Format::Anthropic);
    ASSERT_TRUE(std::holds_alternative<ChatRequest>(other));
    EXPECT_TRUE(std::get<ChatRequest>(other).body.isParsed());
}

} // namespace
} // namespace sy::service
