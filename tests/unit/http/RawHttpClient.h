#pragma once
// Test helpers for the HTTP front: the raw HTTP/1.1 client and incremental response parser of
// support/HttpTestClient.h (exact bytes, split writes, pipelining, disconnects), and a fixture
// base that starts an HttpFront on 127.0.0.1, port 0.
//
// Thread: everything runs on the test thread; waits process events with a bound.
#include "http/HttpFront.h"
#include "support/HttpTestClient.h"

#include <chrono>
#include <gtest/gtest.h>
#include <memory>

namespace sy::http::test {

using namespace std::chrono_literals;

using sy::test::RawResponse;
using sy::test::ResponseParser;
using sy::test::buildRequest;
using sy::test::chunkedBody;

// Connected on construction (bounded wait; check connected()); send() writes bytes as they are.
class RawHttpClient : public sy::test::HttpTestClient {
public:
    explicit RawHttpClient(quint16 port) : HttpTestClient(port)
    {
        connectToServer();
        waitForConnected();
    }

    void send(QByteArrayView bytes) { write(bytes); }
    bool waitForServerClose(std::chrono::milliseconds limit = 5s) { return waitForClose(limit); }
    bool serverClosed() const { return isClosed(); }
    void close() { disconnectFromHost(); }
};

// Fixture base: an HttpFront on 127.0.0.1, port 0, destroyed (and its sockets cleaned up) after
// each test.
class FrontTest : public ::testing::Test {
protected:
    void TearDown() override;
    // Creates and starts the front; fails the test if it cannot listen.
    HttpFront &startFront(FrontOptions options = {});
    // Stops the front now (deletes it and processes the deferred deletions).
    void destroyFront();

    std::unique_ptr<HttpFront> front;
    quint16 port = 0;
};

} // namespace sy::http::test
