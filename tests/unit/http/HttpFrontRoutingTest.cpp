// HttpFront routing and the request copy handed to handlers, driven by a raw loopback client.
#include "RawHttpClient.h"

#include "support/Waits.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <vector>

namespace sy::http::test {
namespace {

class HttpFrontRoutingTest : public FrontTest {
protected:
    // A handler that answers 200 with `name` as body and counts its calls.
    Handler answering(const QByteArray &name, int *calls = nullptr)
    {
        return [name, calls](HttpRequest &&, std::shared_ptr<ResponseSink> sink) {
            if (calls)
                ++*calls;
            sink->respond(200, {{"Content-Type", "text/plain"}}, name);
        };
    }

    std::optional<RawResponse> get(QByteArrayView method, QByteArrayView target)
    {
        RawHttpClient client(port);
        EXPECT_TRUE(client.connected());
        client.send(buildRequest(method, target, port));
        return client.readResponse();
    }
};

TEST_F(HttpFrontRoutingTest, ExactRouteReceivesItsPathOnly)
{
    startFront();
    int calls = 0;
    front->route("GET", "/v1/models", answering("models", &calls));

    const auto hit = get("GET", "/v1/models");
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->status, 200);
    EXPECT_EQ(hit->body, "models");
    EXPECT_EQ(calls, 1);

    const auto longer = get("GET", "/v1/models/extra");
    ASSERT_TRUE(longer);
    EXPECT_EQ(longer->status, 404) << "an exact route must not match a longer path";
    EXPECT_EQ(calls, 1);
}

TEST_F(HttpFrontRoutingTest, LongestMatchingPrefixWins)
{
    startFront();
    front->routePrefix("GET", "/v1/", answering("short"));
    front->routePrefix("GET", "/v1/models/", answering("long"));
    front->routePrefix("GET", "/v1/m", answering("middle"));

    struct Row {
        const char *target;
        const char *expected;
    };
    for (const Row &row : {Row{"/v1/models/gpt-4o", "long"}, Row{"/v1/mx", "middle"},
                           Row{"/v1/chat", "short"}, Row{"/v1/models", "middle"}}) {
        SCOPED_TRACE(row.target);
        const auto response = get("GET", row.target);
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 200);
        EXPECT_EQ(response->body, row.expected);
    }
}

// The header promises exact routes are checked before every prefix, whatever the order in
// which they were registered.
TEST_F(HttpFrontRoutingTest, ExactRouteWinsOverPrefixRegisteredBeforeIt)
{
    startFront();
    front->routePrefix("GET", "/v1/", answering("prefix"));
    front->route("GET", "/v1/models", answering("exact"));

    const auto response = get("GET", "/v1/models");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->body, "exact");
}

TEST_F(HttpFrontRoutingTest, UnknownPathGets404FromTheErrorFormatter)
{
    startFront();
    front->route("GET", "/v1/models", answering("models"));
    std::vector<std::pair<QByteArray, int>> formatted;
    front->setErrorFormatter([&formatted](const QByteArray &path, int status, const QString &message) {
        formatted.emplace_back(path, status);
        return "custom:" + QByteArray::number(status) + ":" + path + ":" + message.toUtf8();
    });

    const auto response = get("GET", "/nowhere/at%20all?x=1");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 404);
    EXPECT_TRUE(response->body.startsWith("custom:404:/nowhere/at all:")) << response->body.toStdString();
    EXPECT_EQ(response->header("content-length"), QByteArray::number(response->body.size()));
    ASSERT_EQ(formatted.size(), 1u);
    EXPECT_EQ(formatted[0].first, "/nowhere/at all");
    EXPECT_EQ(front->refusals("not_found"), 1u);
}

TEST_F(HttpFrontRoutingTest, DefaultErrorBodyIsJsonWithMessageAndCode)
{
    startFront();
    const auto response = get("GET", "/missing");
    ASSERT_TRUE(response);
    EXPECT_EQ(response->status, 404);
    EXPECT_EQ(response->header("content-type"), "application/json");
    const QJsonObject error = QJsonDocument::fromJson(response->body).object().value("error").toObject();
    EXPECT_EQ(error.value("code").toInt(), 404);
    EXPECT_TRUE(error.value("message").toString().contains("/missing"));
}

TEST_F(HttpFrontRoutingTest, KnownPathWithWrongMethodGets405)
{
    startFront();
    int calls = 0;
    front->route("POST", "/v1/chat/completions", answering("chat", &calls));
    front->routePrefix("PUT", "/admin/", answering("admin", &calls));
    QByteArray formattedPath;
    front->setErrorFormatter([&formattedPath](const QByteArray &path, int status, const QString &) {
        formattedPath = path;
        return "status " + QByteArray::number(status);
    });

    for (const char *target : {"/v1/chat/completions", "/admin/keys"}) {
        SCOPED_TRACE(target);
        const auto response = get("GET", target);
        ASSERT_TRUE(response);
        EXPECT_EQ(response->status, 405);
        EXPECT_EQ(response->body, "status 405");
        EXPECT_EQ(formattedPath, target);
    }
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(front->refusals("not_found"), 0u);
}

TEST_F(HttpFrontRoutingTest, HandlerReceivesADeepCopyThatOutlivesTheNextRequest)
{
    startFront();
    std::vector<HttpRequest> seen;
    front->routePrefix("POST", "/v1/", [&seen](HttpRequest &&request, std::shared_ptr<ResponseSink> sink) {
        seen.push_back(std::move(request));
        sink->respond(200, {}, "ok");
    });

    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("POST", "/v1/a%20b/c?x=1&y=two%20words", port,
                             {{"X-First", "One"}, {"Content-Type", "application/json"}, {"X-Second", "Two"}},
                             R"({"model":"m1"})"));
    ASSERT_TRUE(client.readResponse());
    client.send(buildRequest("POST", "/v1/other?z=9", port, {{"X-First", "Changed"}}, "second body, longer"));
    ASSERT_TRUE(client.readResponse());
    ASSERT_EQ(seen.size(), 2u);

    const HttpRequest &first = seen[0];
    EXPECT_EQ(first.method, "POST");
    EXPECT_EQ(first.path, "/v1/a b/c");
    EXPECT_EQ(first.query.queryItemValue("x"), "1");
    EXPECT_EQ(first.query.queryItemValue("y", QUrl::FullyDecoded), "two words");
    EXPECT_EQ(first.body, R"({"model":"m1"})");
    EXPECT_EQ(first.header("x-first"), "One");
    EXPECT_EQ(first.header("X-SECOND"), "Two");
    EXPECT_EQ(first.peer, QHostAddress(QHostAddress::LocalHost));
    QList<QByteArray> names;
    for (const auto &[name, value] : first.headers) {
        EXPECT_EQ(name, name.toLower());
        names.append(name);
    }
    EXPECT_TRUE(names.contains("host"));
    EXPECT_TRUE(names.contains("content-length"));
    EXPECT_LT(names.indexOf("x-first"), names.indexOf("x-second")) << "headers keep their arrival order";

    const HttpRequest &second = seen[1];
    EXPECT_EQ(second.path, "/v1/other");
    EXPECT_EQ(second.body, "second body, longer");
    EXPECT_EQ(second.header("x-first"), "Changed");
    EXPECT_EQ(second.header("x-second"), "");
}

TEST_F(HttpFrontRoutingTest, ManyConcurrentKeepAliveConnectionsAreAllAnswered)
{
    startFront();
    int calls = 0;
    front->routePrefix("GET", "/echo/", [&calls](HttpRequest &&request, std::shared_ptr<ResponseSink> sink) {
        ++calls;
        sink->respond(200, {}, request.path + "|" + request.query.queryItemValue("n").toUtf8());
    });

    constexpr int kConnections = 50;
    constexpr int kRequestsEach = 5;
    std::vector<std::unique_ptr<RawHttpClient>> clients;
    for (int c = 0; c < kConnections; ++c) {
        clients.push_back(std::make_unique<RawHttpClient>(port));
        ASSERT_TRUE(clients.back()->connected()) << "connection " << c;
    }
    for (int r = 0; r < kRequestsEach; ++r) {
        for (int c = 0; c < kConnections; ++c)
            clients[c]->send(buildRequest("GET", "/echo/" + QByteArray::number(c) + "?n=" + QByteArray::number(r), port));
        for (int c = 0; c < kConnections; ++c) {
            const auto response = clients[c]->readResponse();
            ASSERT_TRUE(response) << "connection " << c << " request " << r;
            EXPECT_EQ(response->status, 200);
            EXPECT_EQ(response->body, "/echo/" + QByteArray::number(c) + "|" + QByteArray::number(r));
        }
    }
    EXPECT_EQ(calls, kConnections * kRequestsEach);
    for (const auto &client : clients)
        EXPECT_FALSE(client->serverClosed());
}

TEST_F(HttpFrontRoutingTest, PipelinedRequestsInOneWriteAreAllAnswered)
{
    startFront();
    front->routePrefix("GET", "/p/", answering("pipelined"));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/p/1", port) + buildRequest("GET", "/p/2", port)
                + buildRequest("GET", "/p/3", port));
    for (int i = 1; i <= 3; ++i) {
        const auto response = client.readResponse(2s);
        ASSERT_TRUE(response) << "no answer to pipelined request " << i;
        EXPECT_EQ(response->status, 200);
    }
}

// QtHttpServer 6.4 closed the connection unanswered on a request line it could not split; the
// front does the same, after the answers to the requests before it.
TEST_F(HttpFrontRoutingTest, MalformedRequestLineClosesTheConnectionAfterTheEarlierAnswers)
{
    startFront();
    int calls = 0;
    front->routePrefix("GET", "/p/", answering("before", &calls));
    RawHttpClient client(port);
    ASSERT_TRUE(client.connected());
    client.send(buildRequest("GET", "/p/1", port) + "GET /p/2\r\nHost: localhost\r\n\r\n"
                + buildRequest("GET", "/p/3", port));
    const auto first = client.readResponse(2s);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->body, "before");
    EXPECT_TRUE(client.waitForServerClose());
    EXPECT_FALSE(client.readResponse(200ms)) << "nothing is answered after the malformed request line";
    EXPECT_EQ(calls, 1);
}

// The plain-path shortcut (no QUrl) must give what QUrl gives for the characters it accepts.
TEST_F(HttpFrontRoutingTest, PlainPathWithSubDelimitersReachesTheHandlerUnchanged)
{
    startFront();
    std::vector<QByteArray> paths;
    front->routePrefix("GET", "/v1beta/", [&paths](HttpRequest &&request, std::shared_ptr<ResponseSink> sink) {
        paths.push_back(request.path);
        EXPECT_TRUE(request.query.isEmpty());
        sink->respond(200, {}, "ok");
    });
    const QList<QByteArray> targets{"/v1beta/models/bench/model:generateContent", "/v1beta/a@b!$&'()*+,;=-._~/c",
                                    "/v1beta/x%3Ay"};
    for (const QByteArray &target : targets) {
        RawHttpClient client(port);
        ASSERT_TRUE(client.connected());
        client.send(buildRequest("GET", target, port));
        ASSERT_TRUE(client.readResponse()) << target.constData();
    }
    ASSERT_EQ(paths.size(), 3u);
    for (int i = 0; i < 2; ++i)
        EXPECT_EQ(paths[i], QUrl::fromEncoded(targets[i]).path(QUrl::FullyDecoded).toUtf8());
    EXPECT_EQ(paths[2], "/v1beta/x:y");
}

} // namespace
} // namespace sy::http::test
