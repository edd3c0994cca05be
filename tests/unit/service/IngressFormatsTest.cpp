// What the service reads from a route before routing, in every ingress format: the format of a
// path, the Gemini model route (ids with '/', routing suffixes), the per-format body checks of
// parseChatRequest, and the stored Responses answers behind previous_response_id.
#include "service/ChatRequest.h"
#include "service/IngressRoutes.h"
#include "service/ResponseStore.h"

#include "ConfigBuilders.h"
#include "support/FakeClock.h"
#include "QtPrinters.h"

#include <gtest/gtest.h>

namespace sy::service {
namespace {

using namespace builders;

const QDate kToday(2025, 6, 1);

Workspace workspace()
{
    config::Config cfg;
    config::Model text = model("deepseek/deepseek-v4-flash");
    config::Model eyes = model("seer");
    eyes.capabilities = {"chat", "vision"};
    cfg.models = {text, eyes};
    return Workspace(std::move(cfg));
}

ErrorReply rejected(const QByteArray &raw, const IngressFacts &facts)
{
    auto parsed = parseChatRequest(raw, workspace(), kToday, facts);
    if (std::holds_alternative<ChatRequest>(parsed)) {
        ADD_FAILURE() << "accepted: " << raw.toStdString();
        return {};
    }
    return std::get<ErrorReply>(parsed);
}

TEST(IngressFormatsTest, EachPathSpeaksItsClientsFormat)
{
    EXPECT_EQ(formatForPath("/v1/chat/completions"), api::Format::OpenAiChat);
    EXPECT_EQ(formatForPath("/v1/messages"), api::Format::Anthropic);
    EXPECT_EQ(formatForPath("/v1/messages/count_tokens"), api::Format::Anthropic);
    EXPECT_EQ(formatForPath("/v1/responses"), api::Format::OpenAiResponses);
    EXPECT_EQ(formatForPath("/v1beta/models/x:generateContent"), api::Format::Gemini);
    EXPECT_EQ(formatForPath("/v1beta/nothing"), api::Format::Gemini);
    EXPECT_EQ(formatForPath("/v1/responsesque"), api::Format::OpenAiChat);
}

TEST(IngressFormatsTest, GeminiRouteTakesTheModelUpToTheLastColon)
{
    const auto plain = geminiTarget("/v1beta/models/gemini-2.5-flash:generateContent");
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->model, "gemini-2.5-flash");
    EXPECT_EQ(plain->method, "generateContent");

    // The path arrives percent-decoded: %2F and a plain '/' are the same model.
    const auto slashed = geminiTarget("/v1beta/models/deepseek/deepseek-v4-flash:streamGenerateContent");
    ASSERT_TRUE(slashed);
    EXPECT_EQ(slashed->model, "deepseek/deepseek-v4-flash");
    EXPECT_EQ(slashed->method, "streamGenerateContent");

    const auto suffixed = geminiTarget("/v1beta/models/deepseek/deepseek-v4-flash:nitro:generateContent");
    ASSERT_TRUE(suffixed);
    EXPECT_EQ(suffixed->model, "deepseek/deepseek-v4-flash:nitro");

    EXPECT_FALSE(geminiTarget("/v1beta/models/no-method"));
    EXPECT_FALSE(geminiTarget("/v1beta/models/:generateContent"));
    EXPECT_FALSE(geminiTarget("/v1beta/models/x:"));
    EXPECT_FALSE(geminiTarget("/v1/models/x:generateContent"));
}

TEST(IngressFormatsTest, GeminiBodyNeedsContentsAndTakesTheModelFromThePath)
{
    const IngressFacts gemini{api::Format::Gemini, "deepseek/deepseek-v4-flash", false, false};
    const ErrorReply missing = rejected(R"({"generationConfig":{}})", gemini);
    EXPECT_EQ(missing.status, 400);
    EXPECT_EQ(missing.param, "contents");

    const IngressFacts unknown{api::Format::Gemini, "nope/nope", false, false};
    const ErrorReply noModel = rejected(R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}]})", unknown);
    EXPECT_EQ(noModel.status, 400);
    EXPECT_EQ(noModel.code, "model_not_found");
}

TEST(IngressFormatsTest, GeminiImageToATextModelIsRefusedBeforeAnyCall)
{
    const IngressFacts gemini{api::Format::Gemini, "deepseek/deepseek-v4-flash", false, false};
    const ErrorReply error = rejected(
        R"({"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]}]})", gemini);
    EXPECT_EQ(error.status, 400);
    EXPECT_EQ(error.code, "unsupported_model_input");
}

TEST(IngressFormatsTest, ResponsesInputMustBeANonEmptyStringOrList)
{
    const IngressFacts responses{api::Format::OpenAiResponses};
    for (const char *body : {R"({"model":"seer"})", R"({"model":"seer","input":""})", R"({"model":"seer","input":[]})",
                             R"({"model":"seer","input":7})"}) {
        const ErrorReply error = rejected(body, responses);
        EXPECT_EQ(error.status, 400) << body;
        EXPECT_EQ(error.param, "input") << body;
    }
    const ErrorReply image = rejected(
        R"({"model":"deepseek/deepseek-v4-flash","input":[{"role":"user","content":[{"type":"input_image","image_url":"https://x/y.png"}]}]})",
        responses);
    EXPECT_EQ(image.code, "unsupported_model_input");
}

TEST(IngressFormatsTest, GeminiStreamFactsReachTheRequest)
{
    const IngressFacts array{api::Format::Gemini, "seer", true, true};
    auto parsed = parseChatRequest(R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}]})", workspace(), kToday, array);
    if (const ErrorReply *error = std::get_if<ErrorReply>(&parsed))
        FAIL() << error->message.toStdString();
    const ChatRequest &chat = std::get<ChatRequest>(parsed);
    EXPECT_TRUE(chat.stream);
    EXPECT_TRUE(chat.jsonArrayStream);
    EXPECT_EQ(chat.primaryModel, "seer");
    ASSERT_TRUE(chat.canonical);
    EXPECT_EQ(chat.canonical->model, "seer");
    EXPECT_TRUE(chat.canonical->stream);
    EXPECT_EQ(chat.turns().size(), 1);
}

// --- stored Responses answers ---

api::Message turn(api::Role role, const QString &text)
{
    return api::Message{role, {api::ContentPart::textPart(text)}};
}

TEST(ResponseStoreTest, AConversationIsEveryStoredTurnOldestFirst)
{
    test::FakeClock clock;
    ResponseStore store;
    store.put("resp_1", {"k", {}, {turn(api::Role::User, "a"), turn(api::Role::Assistant, "b")}, {}}, clock.wallNow());
    store.put("resp_2", {"k", "resp_1", {turn(api::Role::User, "c"), turn(api::Role::Assistant, "d")}, {}}, clock.wallNow());
    const auto turns = store.conversation("resp_2", "k", clock.wallNow());
    ASSERT_TRUE(turns);
    ASSERT_EQ(turns->size(), 4);
    EXPECT_EQ(turns->at(0).parts[0].text, "a");
    EXPECT_EQ(turns->at(3).parts[0].text, "d");
}

TEST(ResponseStoreTest, AnotherKeysOrAnUnknownResponseIsNotFound)
{
    test::FakeClock clock;
    ResponseStore store;
    store.put("resp_1", {"k", {}, {turn(api::Role::User, "a")}, {}}, clock.wallNow());
    EXPECT_FALSE(store.conversation("resp_1", "other", clock.wallNow()));
    EXPECT_FALSE(store.conversation("resp_9", "k", clock.wallNow()));
}

TEST(ResponseStoreTest, RetentionDropsTheOldestAndBreaksChainsThroughThem)
{
    test::FakeClock clock;
    ResponseStore store;
    store.setRetention(30, 2);
    store.put("resp_1", {"k", {}, {turn(api::Role::User, "a")}, {}}, clock.wallNow());
    store.put("resp_2", {"k", "resp_1", {turn(api::Role::User, "b")}, {}}, clock.wallNow());
    store.put("resp_3", {"k", "resp_2", {turn(api::Role::User, "c")}, {}}, clock.wallNow());
    EXPECT_EQ(store.size(), 2);
    EXPECT_FALSE(store.conversation("resp_1", "k", clock.wallNow()));
    // A conversation missing its start would mislead the model: it is not found either.
    EXPECT_FALSE(store.conversation("resp_3", "k", clock.wallNow()));

    clock.advance(std::chrono::hours(24 * 31));
    EXPECT_FALSE(store.conversation("resp_2", "k", clock.wallNow()));
}

TEST(ResponseStoreTest, TheMemoryBudgetDropsTheOldestFirst)
{
    test::FakeClock clock;
    ResponseStore store;
    const QString text(1000, u'x');
    const ResponseStore::Entry entry{"k", {}, {turn(api::Role::User, text)}, {}};
    const qint64 one = ResponseStore::entryBytes("resp_1", entry);
    EXPECT_GT(one, 2000);   // the text's UTF-16 bytes at least
    store.setMaxBytes(3 * one + 100);   // ids of other lengths: a few bytes more or less
    for (int i = 1; i <= 10; ++i)
        store.put(QStringLiteral("resp_%1").arg(i), entry, clock.wallNow());
    EXPECT_EQ(store.size(), 3);
    EXPECT_LE(store.bytes(), 3 * one + 100);
    EXPECT_FALSE(store.conversation("resp_7", "k", clock.wallNow()));
    EXPECT_TRUE(store.conversation("resp_8", "k", clock.wallNow()));
    EXPECT_TRUE(store.conversation("resp_10", "k", clock.wallNow()));

    // Replacing an entry counts it once; the newest stays even when it alone is over the budget.
    store.put("resp_10", entry, clock.wallNow());
    EXPECT_EQ(store.size(), 3);
    store.put("resp_big", {"k", {}, {turn(api::Role::User, QString(10'000, u'y'))}, {}}, clock.wallNow());
    EXPECT_EQ(store.size(), 1);
    EXPECT_TRUE(store.conversation("resp_big", "k", clock.wallNow()));
}

TEST(ResponseStoreTest, TheDefaultBudgetHoldsAStoreOfABusyGatewayToTensOfMiB)
{
    test::FakeClock clock;
    ResponseStore store;
    const ResponseStore::Entry entry{"k", {}, {turn(api::Role::User, "Say hello."), turn(api::Role::Assistant, "Hello!")}, {}};
    for (int i = 0; i < 100'000; ++i)
        store.put(QStringLiteral("resp_%1").arg(i), entry, clock.wallNow());
    EXPECT_LT(store.size(), 100'000);
    EXPECT_LE(store.bytes(), ResponseStore::kDefaultMaxBytes);
    EXPECT_TRUE(store.conversation("resp_99999", "k", clock.wallNow()));
}

ChatRequest responsesRequest(const QString &previousId, bool storeIt)
{
    ChatRequest chat;
    chat.format = api::Format::OpenAiResponses;
    api::CanonicalRequest canonical;
    canonical.messages = {turn(api::Role::User, "next")};
    canonical.previousResponseId = previousId;
    canonical.store = storeIt;
    chat.canonical = std::make_shared<const api::CanonicalRequest>(canonical);
    return chat;
}

TEST(ResponseStoreTest, ContinuingPutsTheStoredTurnsFirstAndStoresTheAnswer)
{
    test::FakeClock clock;
    ResponseStore store;
    store.put("resp_1", {"k", {}, {turn(api::Role::User, "first"), turn(api::Role::Assistant, "reply")}, {}}, clock.wallNow());
    ChatRequest chat = responsesRequest("resp_1", true);
    EXPECT_FALSE(continueResponse(chat, store, "k", "resp_2", clock));
    ASSERT_EQ(chat.canonical->messages.size(), 3);
    EXPECT_EQ(chat.canonical->messages[0].parts[0].text, "first");
    EXPECT_EQ(chat.canonical->messages[2].parts[0].text, "next");

    ASSERT_TRUE(chat.onAnswer);
    api::CanonicalAnswer answer;
    answer.parts = {api::ContentPart::textPart("second reply")};
    chat.onAnswer(answer);
    const auto turns = store.conversation("resp_2", "k", clock.wallNow());
    ASSERT_TRUE(turns);
    ASSERT_EQ(turns->size(), 4);
    EXPECT_EQ(turns->at(3).role, api::Role::Assistant);
    EXPECT_EQ(turns->at(3).parts[0].text, "second reply");
}

TEST(ResponseStoreTest, AnUnknownPreviousResponseIsA400NamingTheField)
{
    test::FakeClock clock;
    ResponseStore store;
    ChatRequest chat = responsesRequest("resp_gone", true);
    const std::optional<ErrorReply> error = continueResponse(chat, store, "k", "resp_2", clock);
    ASSERT_TRUE(error);
    EXPECT_EQ(error->status, 400);
    EXPECT_EQ(error->code, "previous_response_not_found");
    EXPECT_EQ(error->param, "previous_response_id");
}

TEST(ResponseStoreTest, StoreFalseKeepsNothing)
{
    test::FakeClock clock;
    ResponseStore store;
    ChatRequest chat = responsesRequest({}, false);
    EXPECT_FALSE(continueResponse(chat, store, "k", "resp_2", clock));
    EXPECT_FALSE(chat.onAnswer);
}

} // namespace
} // namespace sy::service
