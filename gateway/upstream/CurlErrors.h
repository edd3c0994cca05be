#pragma once
// Mapping of libcurl results onto UpstreamErrorKind. Internal to the upstream layer; the table
// lives here and only here so the classification is tested in one place.
#include "upstream/UpstreamClient.h"

#include <QString>
#include <curl/curl.h>
#include <optional>

namespace sy::upstream::detail {

// Kind of a transfer that ended with `code` (never CURLE_OK). `requestStarted` is true once the
// connection was ready and the request went out: curl reports an HTTP/0.9-looking (garbage) reply
// as CURLE_UNSUPPORTED_PROTOCOL, which is then a Protocol error rather than a bad URL scheme.
// CURLE_OPERATION_TIMEDOUT maps to Connect because the only curl timeout the client sets is the
// connect timeout; first-byte and idle timeouts are the client's own and never reach this table.
UpstreamErrorKind classifyCurlResult(CURLcode code, bool requestStarted);

// Why a transfer that ended with `code` failed for want of the gateway's own resources, or
// nothing when it did not. curl reports a socket() that failed with EMFILE as "Couldn't connect to
// server" (CURLE_COULDNT_CONNECT, and CURLINFO_OS_ERRNO 0), the same as a refused connection: the
// failure would count against the channel. `socketErrno` is what socket() set when the transfer's
// socket could not be opened (0 when it was, or was never tried); without one, a failure to
// connect or resolve (the threaded resolver opens descriptors too) is checked against whether
// the process can open a descriptor now. The result is a message for the error (LocalResources).
std::optional<QString> localShortage(CURLcode code, int socketErrno);

} // namespace sy::upstream::detail
