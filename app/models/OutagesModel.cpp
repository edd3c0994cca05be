#include "OutagesModel.h"

namespace sy::app {

OutagesModel::OutagesModel(QObject *parent)
    : KeyedRowsModel(parent)
{
}

QHash<int, QByteArray> OutagesModel::roleNames() const
{
    return {
        {OutageIdRole, "outageId"},
        {TargetKindRole, "targetKind"},
        {TargetRole, "target"},
        {KindRole, "kind"},
        {DescriptionRole, "description"},
        {SecondsLeftRole, "secondsLeft"},
    };
}

QVariant OutagesModel::value(const OutageRow &row, int role) const
{
    switch (role) {
    case OutageIdRole: return double(row.id);   // QML numbers are doubles; ids stay far below 2^53
    case TargetKindRole: return row.targetKind;
    case TargetRole: return row.target;
    case KindRole: return row.kind;
    case DescriptionRole: return row.description;
    case SecondsLeftRole: return row.secondsLeft;
    default: return {};
    }
}

void OutagesModel::setOutages(std::vector<OutageRow> outages)
{
    sync(std::move(outages));
}

} // namespace sy::app
