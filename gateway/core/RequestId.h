#pragma once
// Request ids: returned as `x-request-id` on every response and used as the request log's key.
#include <QByteArray>

namespace sy {

// A new id such as "req_6f1c0a9e2b7d4c35a1e8". Unique within and across runs. Any thread.
QByteArray newRequestId();

} // namespace sy
