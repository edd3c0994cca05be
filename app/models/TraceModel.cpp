#include "TraceModel.h"

namespace sy::app {

TraceModel::TraceModel(QObject *parent)
    : QAbstractListModel(parent)
{
}

QHash<int, QByteArray> TraceModel::roleNames() const
{
    return {
        {SectionRole, "section"},
        {PositionRole, "position"},
        {ChannelRole, "channel"},
        {ModelRole, "modelId"},
        {StatusRole, "status"},
        {LatencyMsRole, "latencyMs"},
        {ReasonRole, "reason"},
    };
}

int TraceModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QVariant TraceModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows[size_t(index.row())];
    switch (role) {
    case SectionRole: return row.section;
    case PositionRole: return row.position;
    case ChannelRole: return row.channel;
    case ModelRole: return row.model;
    case StatusRole: return row.status;
    case LatencyMsRole: return row.latencyMs;
    case ReasonRole: return row.reason;
    default: return {};
    }
}

QString TraceModel::time() const
{
    return m_loaded ? m_record.at.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")) : QString();
}

std::vector<TraceModel::Row> TraceModel::rowsOf(const service::RequestRecord &record)
{
    std::vector<Row> rows;
    int position = 0;
    for (const QString &candidate : record.orderedChannels) {
        // Candidates are "model@channel" (a model chain crosses models), or a bare channel id.
        const qsizetype at = candidate.lastIndexOf(QLatin1Char('@'));
        Row row{QStringLiteral("candidates"), ++position, candidate, {}, {}, -1, {}};
        if (at > 0) {
            row.model = candidate.left(at);
            row.channel = candidate.mid(at + 1);
        }
        if (row.channel == record.answeringChannel && (row.model.isEmpty() || row.model == record.answeringModel))
            row.status = QStringLiteral("answered");
        rows.push_back(row);
    }
    position = 0;
    for (const service::FilteredCandidate &f : record.filtered)
        rows.push_back({QStringLiteral("filtered"), ++position, f.channelId, f.modelId, {}, -1, f.reason});
    position = 0;
    for (const service::AttemptRecord &a : record.attempts.records())
        rows.push_back({QStringLiteral("attempts"), ++position, a.provider, a.model, a.status,
                        a.latencyMs.value_or(-1), a.error});
    position = 0;
    for (const QString &note : record.orderNotes)
        rows.push_back({QStringLiteral("notes"), ++position, {}, {}, {}, -1, note});
    return rows;
}

void TraceModel::setRecord(const service::RequestRecord &record)
{
    // A request's record does not change once logged: the same id needs no update.
    if (m_loaded && m_record.id == record.id)
        return;
    beginResetModel();
    m_loaded = true;
    m_record = record;
    m_rows = rowsOf(record);
    endResetModel();
    emit requestChanged();
}

void TraceModel::clear()
{
    if (!m_loaded)
        return;
    beginResetModel();
    m_loaded = false;
    m_record = {};
    m_rows.clear();
    endResetModel();
    emit requestChanged();
}

} // namespace sy::app
