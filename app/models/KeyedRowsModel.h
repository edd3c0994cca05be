#pragma once
// KeyedRowsModel: a list model of value rows with a stable key, brought up to date by sync():
// rows that are gone are removed, new ones inserted (in blocks), moved ones moved, and kept rows
// get `dataChanged` with only the roles whose value changed. Views keep their selection and
// scroll position across live updates.
//
// Thread: the thread the model lives on (the UI thread).
#include <QAbstractListModel>
#include <QHash>
#include <QSet>
#include <vector>

namespace sy::app {

template <class Row, class Key>
class KeyedRowsModel : public QAbstractListModel {
public:
    using QAbstractListModel::QAbstractListModel;

    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : int(m_rows.size());
    }

    QVariant data(const QModelIndex &index, int role) const override
    {
        if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
            return {};
        return value(m_rows[size_t(index.row())], role);
    }

    const std::vector<Row> &rows() const { return m_rows; }

protected:
    virtual Key keyOf(const Row &row) const = 0;
    virtual QVariant value(const Row &row, int role) const = 0;
    virtual void onCountChanged() {}

    // Makes the rows equal to `next` (keys unique) with the smallest set of row signals.
    void sync(std::vector<Row> next)
    {
        const int before = int(m_rows.size());
        QSet<Key> nextKeys;
        for (const Row &row : next)
            nextKeys.insert(keyOf(row));
        for (int i = int(m_rows.size()) - 1; i >= 0; --i) {
            if (nextKeys.contains(keyOf(m_rows[size_t(i)])))
                continue;
            int first = i;
            while (first > 0 && !nextKeys.contains(keyOf(m_rows[size_t(first - 1)])))
                --first;
            beginRemoveRows({}, first, i);
            m_rows.erase(m_rows.begin() + first, m_rows.begin() + i + 1);
            endRemoveRows();
            i = first;
        }
        QSet<Key> present;
        for (const Row &row : m_rows)
            present.insert(keyOf(row));
        const QList<int> roles = roleNames().keys();
        for (int i = 0; i < int(next.size()); ++i) {
            const Key key = keyOf(next[size_t(i)]);
            if (!present.contains(key)) {
                int last = i;
                while (last + 1 < int(next.size()) && !present.contains(keyOf(next[size_t(last + 1)])))
                    ++last;
                beginInsertRows({}, i, last);
                m_rows.insert(m_rows.begin() + i, next.begin() + i, next.begin() + last + 1);
                endInsertRows();
                i = last;
                continue;
            }
            if (keyOf(m_rows[size_t(i)]) != key) {
                int from = i + 1;
                while (keyOf(m_rows[size_t(from)]) != key)
                    ++from;
                beginMoveRows({}, from, from, {}, i);
                Row moved = std::move(m_rows[size_t(from)]);
                m_rows.erase(m_rows.begin() + from);
                m_rows.insert(m_rows.begin() + i, std::move(moved));
                endMoveRows();
            }
            QList<int> changed;
            for (int role : roles) {
                if (value(m_rows[size_t(i)], role) != value(next[size_t(i)], role))
                    changed.append(role);
            }
            m_rows[size_t(i)] = std::move(next[size_t(i)]);
            if (!changed.isEmpty())
                emit dataChanged(index(i), index(i), changed);
        }
        if (int(m_rows.size()) != before)
            onCountChanged();
    }

    // Replaces one row's value in place and reports the roles that changed.
    void updateRow(int i, Row row)
    {
        QList<int> changed;
        for (int role : roleNames().keys()) {
            if (value(m_rows[size_t(i)], role) != value(row, role))
                changed.append(role);
        }
        m_rows[size_t(i)] = std::move(row);
        if (!changed.isEmpty())
            emit dataChanged(index(i), index(i), changed);
    }

private:
    std::vector<Row> m_rows;
};

} // namespace sy::app
