#pragma once
// Shared pieces of the upstream tests: a handler that records every callback (with optional
// hooks to act from inside a callback) and a fixture with a loopback server and a client.
#include "LoopbackHttpServer.h"
#include "support/Waits.h"
#include "upstream/CurlUpstreamClient.h"

#include <gtest/gtest.h>
#include <algorithm>
#include <functional>
#include <optional>

namespace sy::upstream::test {

using namespace std::chrono_literals;

class RecordingHandler : public StreamHandler {
public:
    void onHeaders(int statusCode, const HeaderList &headerList) override
    {
        ++calls;
        ++headerCalls;
        status = statusCode;
        headers = headerList;
        if (afterHeaders)
            afterHeaders();
    }
    void onChunk(const QByteArray &bytes) override
    {
        ++calls;
        chunks.append(bytes);
        body += bytes;
        if (afterChunk)
            afterChunk(bytes);
    }
    void onComplete() override
    {
        ++calls;
        completed = true;
    }
    void onError(const UpstreamError &upstreamError) override
    {
        ++calls;
        error = upstreamError;
    }

    bool finished() const { return completed || error.has_value(); }
    UpstreamErrorKind errorKind() const { return error ? error->kind : UpstreamErrorKind::Other; }
    QByteArray header(QByteArrayView name) const { return http::headerValue(headers, name); }

    int calls = 0;
    int headerCalls = 0;
    int status = 0;
    HeaderList headers;
    QList<QByteArray> chunks;
    QByteArray body;
    bool completed = false;
    std::optional<UpstreamError> error;
    std::function<void()> afterHeaders;
    std::function<void(const QByteArray &)> afterChunk;
};

class UpstreamTest : public ::testing::Test {
protected:
    // Only loopback may be contacted: no proxy from the environment may sit in between.
    static void SetUpTestSuite()
    {
        for (const char *name : {"http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY",
                                 "HTTPS_PROXY", "ALL_PROXY"})
            qunsetenv(name);
    }

    static UpstreamRequest get(QByteArray url)
    {
        UpstreamRequest request;
        request.method = "GET";
        request.url = std::move(url);
        return request;
    }

    static bool waitFinished(const RecordingHandler &handler,
                             std::chrono::milliseconds limit = 10s)
    {
        return sy::test::waitUntil([&] { return handler.finished(); }, limit);
    }

    // `count` GETs of `to`'s `path`, each sent once the one before it completed.
    static bool sendOneAfterAnother(CurlUpstreamClient &through, const LoopbackHttpServer &to, int count,
                                    QByteArrayView path = "/n")
    {
        for (int i = 0; i < count; ++i) {
            RecordingHandler handler;
            through.send(get(to.url(path.toByteArray() + QByteArray::number(i))), &handler);
            if (!waitFinished(handler) || !handler.completed) {
                ADD_FAILURE() << "request " << i << " did not complete";
                return false;
            }
        }
        return true;
    }

    // `handlers.size()` GETs of `to`'s `path` sent at once, which `to` answers 200 "ok" after
    // `delay` each (its script is set so); true once every one finished.
    static bool sendSideBySide(CurlUpstreamClient &through, LoopbackHttpServer &to, QByteArrayView path,
                               std::chrono::milliseconds delay, std::vector<RecordingHandler> &handlers)
    {
        to.setScript([delay](const ReceivedRequest &) {
            return QList<Step>{Step::write(LoopbackHttpServer::response(200, "ok"), delay)};
        });
        for (RecordingHandler &handler : handlers)
            through.send(get(to.url(path)), &handler);
        return sy::test::waitUntil([&] {
            return std::all_of(handlers.begin(), handlers.end(), [](const RecordingHandler &h) { return h.finished(); });
        }, 10s);
    }

    LoopbackHttpServer server;
    CurlUpstreamClient client;
};

} // namespace sy::upstream::test
