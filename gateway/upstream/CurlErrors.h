#pragma once
// Mapping of libcurl results onto UpstreamErrorKind. Internal to the upstream layer; the table
// lives here and only here so the classification is tested in one place.
#include "upstream/UpstreamClient.h"

#include <curl/curl.h>

namespace sy::upstream::detail {

// Kind of a transfer that ended with `code` (never CURLE_OK). `requestStarted` is true once the
// connection was ready and the request went out: curl reports an HTTP/0.9-looking (garbage) reply
// as CURLE_UNSUPPORTED_PROTOCOL, which is then a Protocol error rather than a bad URL scheme.
// CURLE_OPERATION_TIMEDOUT maps to Connect because the only curl timeout the client sets is the
// connect timeout; first-byte and idle timeouts are the client's own and never reach this table.
UpstreamErrorKind classifyCurlResult(CURLcode code, bool requestStarted);

} // namespace sy::upstream::detail
