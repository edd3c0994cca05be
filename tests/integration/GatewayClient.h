#pragma once
// GatewayClient: the raw HTTP/1.1 test client (support/HttpTestClient.h) for the gateway's
// end-to-end tests: the status line, the headers, the de-chunked body as it arrives (SSE events
// one by one), whether the connection closed; it can disconnect mid-response and send raw bytes.
#include "support/HttpTestClient.h"

namespace sy::integration {

using RequestHeaders = sy::test::HeaderList;
using GatewayClient = sy::test::HttpTestClient;

} // namespace sy::integration
