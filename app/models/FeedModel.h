#pragma once
// FeedModel: the live failover feed, newest first ("cloudru 503 → yandex ok, 812 ms"). By
// default only requests that failed over or failed are shown; `showAll` lists every request.
//
// Thread: the UI thread; apply() takes the snapshot the gateway thread sent and keeps the events
// it has not seen yet (the snapshot carries only the latest ones).
#include "KeyedRowsModel.h"
#include "service/DashboardSnapshot.h"

#include <QtQml/qqmlregistration.h>

namespace sy::app {

class FeedModel : public KeyedRowsModel<service::FeedEvent, QByteArray> {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(bool showAll READ showAll WRITE setShowAll NOTIFY showAllChanged)
public:
    enum Role {
        RequestIdRole = Qt::UserRole + 1,
        TimeRole,           // "14:03:07", local time
        ModelRole,
        SummaryRole,
        StatusRole,
        FailedOverRole,
    };
    Q_ENUM(Role)

    explicit FeedModel(QObject *parent = nullptr);

    void apply(const service::DashboardSnapshot &snapshot);
    int count() const { return rowCount(); }
    bool showAll() const { return m_showAll; }
    void setShowAll(bool showAll);
    QHash<int, QByteArray> roleNames() const override;

signals:
    void countChanged();
    void showAllChanged();

protected:
    QByteArray keyOf(const service::FeedEvent &row) const override { return row.requestId; }
    QVariant value(const service::FeedEvent &row, int role) const override;
    void onCountChanged() override { emit countChanged(); }

private:
    void refilter();
    // What the feed is for: a request that failed over or failed.
    static bool isNotable(const service::FeedEvent &event) { return event.failedOver || event.status >= 400; }

    static constexpr int kKept = 500;    // plain requests remembered (shown with showAll)
    static constexpr int kShown = 50;    // rows shown; as many failovers and errors are remembered

    bool m_showAll = false;
    std::vector<service::FeedEvent> m_all;
};

} // namespace sy::app
