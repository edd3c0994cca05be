#include "LedgerPages.h"

#include <QJsonObject>
#include <gtest/gtest.h>

namespace sy::system_test {

QJsonArray everyLedgerPage(const std::function<QJsonArray(const QByteArray &)> &list, int limit)
{
    QJsonArray all;
    quint64 after = 0;
    for (int pages = 0; pages < 1'000; ++pages) {
        QByteArray path = "/admin/ledger?after=" + QByteArray::number(after);
        if (limit > 0)
            path += "&limit=" + QByteArray::number(limit);
        const QJsonArray page = list(path);
        if (page.isEmpty())
            return all;
        if (limit > 0) {
            EXPECT_LE(page.size(), limit);
        }
        for (const QJsonValue &entry : page)
            all.append(entry);
        after = quint64(page.last().toObject().value("sequence").toInteger());
    }
    ADD_FAILURE() << "the ledger did not end within 1,000 pages";
    return all;
}

} // namespace sy::system_test
