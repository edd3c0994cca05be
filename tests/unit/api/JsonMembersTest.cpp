// JsonMembers and ChatBodies: in-place rewrites of Chat Completions bodies must give the same
// JSON as a full parse-and-rewrite, keep everything else byte for byte, and refuse what is not
// a well-formed object.
#include "api/JsonMembers.h"
#include "api/openai/ChatBodies.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <functional>
#include <gtest/gtest.h>
#include <random>

using namespace sy;

namespace {

QJsonObject parsed(const QByteArray &json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    EXPECT_EQ(error.error, QJsonParseError::NoError) << json.constData();
    return doc.object();
}

api::ClientRequest requestOf(const QByteArray &raw, bool stream)
{
    api::ClientRequest r;
    r.raw = raw;
    r.body = QJsonDocument::fromJson(raw).object();
    r.stream = stream;
    return r;
}

} // namespace

TEST(JsonMembersTest, FindsTopLevelMembersAndSkipsNestedOnes)
{
    const QByteArray json = R"( {"a": {"model": "x", "b": [1, "}"]}, "model" : "m", "n": -1.5e3, "t": true } )";
    const auto members = api::topLevelMembers(json);
    ASSERT_TRUE(members);
    ASSERT_EQ(members->size(), 4u);
    EXPECT_EQ((*members)[1].key, "model");
    const auto &m = (*members)[1];
    EXPECT_EQ(QByteArrayView(json).sliced(m.valueBegin, m.valueEnd - m.valueBegin), "\"m\"");
}

TEST(JsonMembersTest, RefusesWhatIsNotAWholeObject)
{
    for (const char *bad : {"", "[]", "{not json", R"({"a":1)", R"({"a" 1})", R"({"a":"unterminated})", R"({"a":1} trailing)", "{,}"})
        EXPECT_FALSE(api::topLevelMembers(QByteArray(bad))) << bad;
    EXPECT_TRUE(api::topLevelMembers(QByteArray("{}")));
}

// Random objects whose strings are full of what the scanner must step over: escaped quotes,
// runs of backslashes before a quote, brackets and braces, \u escapes. Each member the scanner
// finds must be the member a full parser finds, and every cut-short prefix must be refused.
TEST(JsonMembersTest, MatchesAFullParserOnStringsWithBackslashRunsAndBrackets)
{
    std::mt19937 rng(20261203);
    const auto pick = [&](int n) { return int(rng() % unsigned(n)); };
    const auto randomString = [&] {
        static const char *pieces[] = {"a", "b c", "\\\"", "\\\\", "\\\\\\\"", "\\\\\\\\", "{", "}", "[", "]",
                                       ",", ":", "\\n", "\\u0041", "\\/", "caf\xc3\xa9", "\\\\\\\\\\\\"};
        QByteArray out = "\"";
        for (int n = pick(12); n > 0; --n)
            out += pieces[pick(std::size(pieces))];
        return out + "\"";
    };
    std::function<QByteArray(int)> randomValue = [&](int depth) -> QByteArray {
        switch (depth > 3 ? pick(3) : pick(5)) {
        case 0: return randomString();
        case 1: return QByteArray::number(pick(2000) - 1000) + (pick(2) ? ".5e1" : "");
        case 2: return pick(2) ? "true" : "null";
        case 3: {
            QByteArray out = "[";
            for (int n = pick(4); n > 0; --n)
                out += randomValue(depth + 1) + (n > 1 ? ", " : "");
            return out + "]";
        }
        default: {
            QByteArray out = "{";
            for (int n = pick(4); n > 0; --n)
                out += randomString() + ":" + randomValue(depth + 1) + (n > 1 ? "," : "");
            return out + "}";
        }
        }
    };
    for (int round = 0; round < 2000; ++round) {
        QByteArray json = "{";
        const int count = 1 + pick(5);
        for (int n = 0; n < count; ++n)
            json += (n ? ", " : " ") + QByteArray("\"k") + QByteArray::number(n) + "\" : " + randomValue(0);
        json += "}";
        const QJsonObject expected = parsed(json);
        const auto members = api::topLevelMembers(json);
        ASSERT_TRUE(members) << json.constData();
        ASSERT_EQ(members->size(), size_t(count)) << json.constData();
        for (int n = 0; n < count; ++n) {
            const api::JsonMember &m = (*members)[size_t(n)];
            EXPECT_EQ(m.key, "k" + QByteArray::number(n)) << json.constData();
            const QByteArray wrapped = "{\"v\":" + api::memberValue(json, m).toByteArray() + "}";
            EXPECT_EQ(parsed(wrapped).value("v"), expected.value("k" + QString::number(n))) << json.constData();
        }
        for (qsizetype cut = 0; cut < json.size(); ++cut)
            ASSERT_FALSE(api::topLevelMembers(QByteArrayView(json).first(cut))) << json.first(cut).constData();
    }
}

// The rewrite copies runs of members the source joins with single commas in one piece: the text
// must be what writing every kept member on its own ("key": as written, then the value) gives,
// whatever the spacing between members and wherever the edits fall.
TEST(JsonMembersTest, RewriteWritesEachKeptMemberAsWrittenWhateverTheSpacing)
{
    const auto memberByMember = [](QByteArrayView json, const std::vector<api::JsonMember> &members,
                                   const std::vector<api::JsonEdit> &edits, const std::vector<QByteArray> &appended) {
        QList<QByteArray> parts;
        for (const api::JsonMember &m : members) {
            const api::JsonEdit *edit = nullptr;
            for (const api::JsonEdit &e : edits) {
                if (e.key == m.key)
                    edit = &e;
            }
            if (edit && edit->value.isEmpty())
                continue;
            parts.append(json.sliced(m.begin, m.valueBegin - m.begin).toByteArray()
                         + (edit ? edit->value : json.sliced(m.valueBegin, m.valueEnd - m.valueBegin).toByteArray()));
        }
        for (const QByteArray &member : appended)
            parts.append(member);
        return "{" + parts.join(',') + "}";
    };
    const QByteArray bodies[] = {
        R"({"id":"c1","object":"chat.completion.chunk","model":"up","choices":[{"delta":{"content":"x"}}]})",
        R"({"model":"up","id":"c1"})",
        R"({"id":"c1","model":"up"})",
        R"({ "id" : "c1" , "model":"up",  "choices" : [] ,"usage":null })",
        R"({"model":"a","model":"b","x":1})",
        R"({"only":1})",
        "{}",
        "{\n  \"id\": 1,\n  \"model\": \"up\",\n  \"n\": 2\n}",
    };
    const std::vector<std::vector<api::JsonEdit>> editSets = {
        {},
        {{"model", "\"public\""}},
        {{"model", {}}},
        {{"id", "\"new\""}, {"usage", {}}},
        {{"x", {}}, {"only", "2"}, {"choices", "[1]"}},
    };
    const std::vector<std::vector<QByteArray>> appendedSets = {{}, {R"("usage":{"n":1})"}, {R"("a":1)", R"("b":2)"}};
    for (const QByteArray &body : bodies) {
        const auto members = api::topLevelMembers(body);
        ASSERT_TRUE(members) << body.constData();
        for (const auto &edits : editSets) {
            for (const auto &appended : appendedSets) {
                const QByteArray rewritten = api::rewriteMembers(body, *members, edits, appended);
                EXPECT_EQ(rewritten, memberByMember(body, *members, edits, appended)) << body.constData();
                EXPECT_TRUE(api::topLevelMembers(rewritten)) << rewritten.constData();
            }
        }
    }
}

TEST(JsonMembersTest, JsonStringEscapesQuotesBackslashesAndControls)
{
    EXPECT_EQ(api::jsonString("a\"b\\c\nd\x01"), QByteArray(R"("a\"b\\c\nd\u0001")"));
    EXPECT_EQ(parsed("{\"k\":" + api::jsonString("tricky \"model\" \\ \t") + "}").value("k").toString(),
              QStringLiteral("tricky \"model\" \\ \t"));
    EXPECT_EQ(api::jsonString("team/model-1 caf\xc3\xa9"), QByteArray("\"team/model-1 caf\xc3\xa9\""));
    EXPECT_EQ(api::jsonString(""), QByteArray("\"\""));
}

TEST(ChatBodiesTest, UpstreamBodyRenamesModelDropsRoutingFieldsAndKeepsTheRest)
{
    const QByteArray raw = R"({"model":"public/m","models":["x"],"provider":{"sort":"price"},"messages":[{"role":"user","content":"hi \"there\""}],"temperature":0.2})";
    const QJsonObject out = parsed(api::openai::upstreamRequestBody(requestOf(raw, false), "upstream-m"));
    EXPECT_EQ(out.value("model").toString(), "upstream-m");
    EXPECT_FALSE(out.contains("models"));
    EXPECT_FALSE(out.contains("provider"));
    EXPECT_EQ(out.value("temperature").toDouble(), 0.2);
    EXPECT_EQ(out.value("messages"), QJsonDocument::fromJson(raw).object().value("messages"));
    EXPECT_FALSE(out.contains("stream_options"));
}

TEST(ChatBodiesTest, UpstreamStreamBodyAsksForUsageWithOrWithoutClientOptions)
{
    const QJsonObject added = parsed(api::openai::upstreamRequestBody(requestOf(R"({"model":"a","stream":true,"messages":[]})", true), "u"));
    EXPECT_TRUE(added.value("stream_options").toObject().value("include_usage").toBool());
    const QJsonObject merged = parsed(api::openai::upstreamRequestBody(
        requestOf(R"({"model":"a","stream":true,"stream_options":{"include_usage":false,"x":1},"messages":[]})", true), "u"));
    EXPECT_TRUE(merged.value("stream_options").toObject().value("include_usage").toBool());
    EXPECT_EQ(merged.value("stream_options").toObject().value("x").toInt(), 1);
}

TEST(ChatBodiesTest, UpstreamBodyGetsAModelWhenTheClientUsedModelsOnly)
{
    const QJsonObject out = parsed(api::openai::upstreamRequestBody(requestOf(R"({"models":["a","b"],"messages":[]})", false), "u"));
    EXPECT_EQ(out.value("model").toString(), "u");
    EXPECT_FALSE(out.contains("models"));
}

TEST(ChatBodiesTest, PlainAnswerGetsThePublicModelAndKeepsUsage)
{
    const QByteArray body = R"({"id":"c1","object":"chat.completion","model":"up","choices":[{"index":0,"message":{"role":"assistant","content":"x"}}],"usage":{"prompt_tokens":3,"completion_tokens":5}})";
    const api::openai::PlainAnswer answer = api::openai::rewritePlainAnswer(body, "pub/m");
    ASSERT_TRUE(answer.problem.isEmpty());
    EXPECT_TRUE(answer.usage.known);
    EXPECT_EQ(answer.usage.promptTokens, 3);
    EXPECT_EQ(answer.usage.completionTokens, 5);
    const QJsonObject out = parsed(answer.body);
    EXPECT_EQ(out.value("model").toString(), "pub/m");
    EXPECT_EQ(out.value("id").toString(), "c1");
}

TEST(ChatBodiesTest, PlainAnswerWithoutChoicesOrNotJsonIsAProblem)
{
    EXPECT_FALSE(api::openai::rewritePlainAnswer(R"({"choices":[]})", "m").problem.isEmpty());
    EXPECT_FALSE(api::openai::rewritePlainAnswer(R"({"choices":[ ]})", "m").problem.isEmpty());
    EXPECT_FALSE(api::openai::rewritePlainAnswer(R"({"id":"x"})", "m").problem.isEmpty());
    EXPECT_FALSE(api::openai::rewritePlainAnswer("garbage", "m").problem.isEmpty());
}

TEST(ChatBodiesTest, StreamChunkUsageIsDroppedUnlessTheClientAskedForIt)
{
    const QByteArray usageOnly = R"({"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}})";
    const api::openai::StreamChunk hidden = api::openai::rewriteStreamChunk(usageOnly, "m", false);
    ASSERT_TRUE(hidden.usage);
    EXPECT_EQ(hidden.usage->completionTokens, 2);
    EXPECT_TRUE(hidden.data.isEmpty());
    const api::openai::StreamChunk shown = api::openai::rewriteStreamChunk(usageOnly, "m", true);
    EXPECT_EQ(parsed(shown.data).value("usage").toObject().value("completion_tokens").toInt(), 2);

    const QByteArray withChoices = R"({"choices":[{"delta":{"content":"x"}}],"usage":{"prompt_tokens":1,"completion_tokens":2},"model":"up"})";
    const api::openai::StreamChunk stripped = api::openai::rewriteStreamChunk(withChoices, "pub", false);
    EXPECT_TRUE(stripped.hasChoices);
    EXPECT_FALSE(parsed(stripped.data).contains("usage"));
    EXPECT_EQ(parsed(stripped.data).value("model").toString(), "pub");
}

TEST(ChatBodiesTest, StreamChunkErrorsAndGarbageAreReported)
{
    EXPECT_TRUE(api::openai::rewriteStreamChunk(R"({"error":{"message":"boom"}})", "m", false).isError);
    EXPECT_TRUE(api::openai::rewriteStreamChunk("{not json", "m", false).malformed);
}

TEST(ChatBodiesTest, EscapedKeysFallBackToTheFullParser)
{
    const QByteArray body = R"({"mod\u0065l":"up","choices":[{"index":0}]})";
    const api::openai::PlainAnswer answer = api::openai::rewritePlainAnswer(body, "pub");
    ASSERT_TRUE(answer.problem.isEmpty());
    EXPECT_EQ(parsed(answer.body).value("model").toString(), "pub");
}

TEST(ChatBodiesTest, UsageIsReadTheSameInPlaceAsByAFullParse)
{
    // Counts and *_details objects are read from the text; anything else goes through a full
    // parse. Either way the figures are what the parsed object says.
    const QList<QByteArray> usages = {
        R"({"prompt_tokens":10,"completion_tokens":9,"total_tokens":19})",
        R"({ "prompt_tokens" : 7 , "completion_tokens":0 })",
        R"({"prompt_tokens":12,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":8,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":2}})",
        R"({"prompt_tokens":12,"prompt_tokens_details":{}})",
        R"({"prompt_tokens":1,"prompt_tokens":4})",
        R"({"prompt_tokens_details":{"cached_tokens":3},"prompt_tokens":5,"prompt_tokens_details":{"audio_tokens":1}})",
        R"({"prompt_tokens":1.5e1,"completion_tokens":2})",
        R"({"prompt_tokens":"10","completion_tokens":2})",
        R"({"prompt_tokens":-3,"completion_tokens":2})",
        R"({"prompt_tokens":007,"completion_tokens":2})",
        R"({"prompt_tokens":10,"completion_tokens":9,"cost":{"total":0.25}})",
        R"({"prompt_tokens":10,"prompt_tokens_details":null})",
        R"({"pr\u006fmpt_tokens":10})",
        R"({"prompt_tokens":123456789012345678,"completion_tokens":1})",
        R"({})",
        R"([])",
        R"({"prompt_tokens":10,})",
    };
    for (const QByteArray &usage : usages) {
        const QByteArray answer = R"({"choices":[{"index":0}],"usage":)" + usage + "}";
        const api::openai::PlainAnswer plain = api::openai::rewritePlainAnswer(answer, "m");
        const QJsonObject object = QJsonDocument::fromJson(usage).object();
        SCOPED_TRACE(usage.constData());
        EXPECT_EQ(plain.usage.known, !object.isEmpty());
        EXPECT_EQ(plain.usage.promptTokens, qint64(object.value("prompt_tokens").toDouble()));
        EXPECT_EQ(plain.usage.completionTokens, qint64(object.value("completion_tokens").toDouble()));
        EXPECT_EQ(plain.usage.cachedTokens,
                  qint64(object.value("prompt_tokens_details").toObject().value("cached_tokens").toDouble()));
    }
}
