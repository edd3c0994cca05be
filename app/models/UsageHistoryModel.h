#pragma once
// UsageHistoryModel: the spend and usage history (GET /admin/usage/history?days=&by=key|model) for
// the Spend page: one table row per (day, name) that had requests, newest day first, and per
// name the series of one metric over every day of the period for the charts.
//
// Metrics: "requests", "prompt_tokens", "completion_tokens", "tokens" (both), "cost" (in the
// workspace currency). Thread: the UI thread.
#include <QAbstractListModel>
#include <QStringList>
#include <QVariant>
#include <QtQml/qqmlregistration.h>
#include <vector>

namespace sy::app {

struct UsageRow {
    QString date;             // YYYY-MM-DD
    QString name;             // key name or model id
    double requests = 0;
    double promptTokens = 0;
    double completionTokens = 0;
    double cost = 0;
};

class UsageHistoryModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(QString by READ by NOTIFY loaded)
    Q_PROPERTY(QStringList dates READ dates NOTIFY loaded)
    Q_PROPERTY(QStringList names READ names NOTIFY loaded)
    Q_PROPERTY(double totalRequests READ totalRequests NOTIFY loaded)
    Q_PROPERTY(double totalTokens READ totalTokens NOTIFY loaded)
    Q_PROPERTY(double totalCost READ totalCost NOTIFY loaded)
public:
    enum Role {
        DateRole = Qt::UserRole + 1,
        NameRole,
        RequestsRole,
        PromptTokensRole,
        CompletionTokensRole,
        CostRole,
    };
    Q_ENUM(Role)

    explicit UsageHistoryModel(QObject *parent = nullptr) : QAbstractListModel(parent) {}

    // Takes the API's answer ({by, days: [{date, rows: [{name, requests, prompt_tokens,
    // completion_tokens, cost}]}]}, as the JS object QML got). Days in any order; anything
    // malformed is skipped. An empty or foreign value empties the model.
    Q_INVOKABLE void load(const QVariant &reply);

    // `metric` per day for `name`, one value per entry of dates() (0 where it had none).
    Q_INVOKABLE QVariantList values(const QString &name, const QString &metric) const;
    // The largest sum of `metric` over all names on one day (the stacked bar's height).
    Q_INVOKABLE double maxDayTotal(const QString &metric) const;

    QString by() const { return m_by; }
    QStringList dates() const { return m_dates; }
    // Names by total cost, then requests, most first (the chart's stacking and colour order).
    QStringList names() const { return m_names; }
    double totalRequests() const;
    double totalTokens() const;
    double totalCost() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

signals:
    void loaded();

private:
    static double metricOf(const UsageRow &row, const QString &metric);

    QString m_by;
    QStringList m_dates;      // oldest first
    QStringList m_names;
    std::vector<UsageRow> m_rows; // newest day first, then by name order
};

} // namespace sy::app
