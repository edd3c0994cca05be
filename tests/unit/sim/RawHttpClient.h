#pragma once
// RawHttpClient: the raw HTTP/1.1 test client (support/HttpTestClient.h) for the simulator's
// loopback tests, with close() meaning an abrupt client disconnect.
#include "support/HttpTestClient.h"

namespace sy::sim::test {

class RawHttpClient : public sy::test::HttpTestClient {
public:
    using HttpTestClient::HttpTestClient;
    void close() { abort(); }
};

} // namespace sy::sim::test
