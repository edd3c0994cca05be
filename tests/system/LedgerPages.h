#pragma once
// Reading GET /admin/ledger whole, as a reader pages it: `after=` the last sequence listed, until
// an empty page. Shared by the in-process fixtures and the ones that drive the program.
#include <QByteArray>
#include <QJsonArray>
#include <functional>

namespace sy::system_test {

// Every entry, page after page, through `list` (GET the path with the admin token, expecting 200
// and an array). With `limit` > 0 each request asks for that page size and every page is expected
// to hold at most that many; 0 leaves the size to the server. Fails the test if the ledger does
// not end within 1,000 pages.
QJsonArray everyLedgerPage(const std::function<QJsonArray(const QByteArray &)> &list, int limit = 0);

} // namespace sy::system_test
