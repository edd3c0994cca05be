#pragma once
// OutagesModel: the failure-lab outages in force (a channel or a model taken down on purpose),
// each with what it does and how long it has left, for the "restore" list.
//
// Thread: the UI thread; setOutages() takes the rows the gateway thread sent.
#include "KeyedRowsModel.h"

#include <QString>
#include <QtQml/qqmlregistration.h>

namespace sy::app {

struct OutageRow {
    quint64 id = 0;
    QString targetKind;      // channel | model
    QString target;          // channel id or model id
    QString kind;            // error:503 | rate_limit | timeout | hang | drop_mid_stream | slow
    QString description;     // e.g. "503 for 42 s"
    int secondsLeft = 0;
};

class OutagesModel : public KeyedRowsModel<OutageRow, quint64> {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(int count READ count NOTIFY countChanged)
public:
    enum Role {
        OutageIdRole = Qt::UserRole + 1,
        TargetKindRole,
        TargetRole,
        KindRole,
        DescriptionRole,
        SecondsLeftRole,
    };
    Q_ENUM(Role)

    explicit OutagesModel(QObject *parent = nullptr);

    void setOutages(std::vector<OutageRow> outages);
    int count() const { return rowCount(); }
    QHash<int, QByteArray> roleNames() const override;

signals:
    void countChanged();

protected:
    quint64 keyOf(const OutageRow &row) const override { return row.id; }
    QVariant value(const OutageRow &row, int role) const override;
    void onCountChanged() override { emit countChanged(); }
};

} // namespace sy::app
