#pragma once
// Request ids: returned as `x-request-id` on every response and used as the request log's key.
#include <QByteArray>

namespace sy {

// A new id such as "req_018e3f2a9c4b6f1c0a9e2b7d4c35a1e8b2d9": "req_", then the time in
// milliseconds since the Unix epoch (12 hex digits), then 80 random bits (20 hex digits). Unique
// within and across runs (the random part alone is as wide as the whole id once was). The time
// first makes ids of one moment neighbours in the request log's id index, so a batch of rows
// updates a few of its pages, not one page per row. Any thread.
QByteArray newRequestId();

} // namespace sy
