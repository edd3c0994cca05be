#pragma once
// A SimServer listening on loopback port 0 for each test, with helpers that talk to it over HTTP.
#include "RawHttpClient.h"
#include "SimServer.h"
#include "support/Waits.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <gtest/gtest.h>
#include <memory>

namespace sy::sim::test {

// The `event:` names and `data:` payloads of a named-event SSE body, in order.
inline QList<QPair<QByteArray, QByteArray>> namedEvents(const QByteArray &body)
{
    QList<QPair<QByteArray, QByteArray>> events;
    for (const QByteArray &block : body.split('\n')) {
        if (block.startsWith("event: "))
            events.append({block.mid(7), {}});
        else if (block.startsWith("data: ") && !events.isEmpty())
            events.last().second = block.mid(6);
    }
    return events;
}

class SimServerFixture : public ::testing::Test {
protected:
    void SetUp() override
    {
        server = std::make_unique<SimServer>(SimOptions{seed()});
        port = server->listen(QHostAddress::LocalHost, 0);
        ASSERT_NE(port, 0) << qPrintable(server->errorString());
    }
    void TearDown() override { server.reset(); }

    virtual quint32 seed() const { return 1; }

    // const, so that chained [] look-ups on the result read instead of inserting.
    static const QJsonObject json(const QByteArray &text)
    {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(text, &error);
        EXPECT_EQ(error.error, QJsonParseError::NoError) << text.constData();
        return document.object();
    }

    // One request, waited for; returns the client for inspection.
    std::unique_ptr<RawHttpClient> call(const QByteArray &method, const QByteArray &path, const QByteArray &body = {},
                                        const sy::test::HeaderList &headers = {})
    {
        auto client = std::make_unique<RawHttpClient>(port);
        client->send(method, path, body, headers);
        EXPECT_TRUE(client->waitForEnd()) << method.constData() << ' ' << path.constData();
        return client;
    }

    void putRules(const QByteArray &script)
    {
        const auto client = call("PUT", "/_sim/rules", script);
        ASSERT_EQ(client->status(), 200) << client->body().constData();
    }

    // Status of a plain chat completion for `model` on `path`.
    int chat(const QByteArray &path, const QByteArray &model)
    {
        return call("POST", path, R"({"model":")" + model + R"(","messages":[]})")->status();
    }

    const QJsonObject getStats() { return json(call("GET", "/_sim/stats")->body()); }

    std::unique_ptr<SimServer> server;
    quint16 port = 0;
};

} // namespace sy::sim::test
