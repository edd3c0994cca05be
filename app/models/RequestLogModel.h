#pragma once
// RequestLogModel: one page of the request log, newest first, and the filters that chose it
// (key, model, status, failed over). Changing a filter emits filterChanged(); the owner fetches
// a new page on the gateway thread and hands it to setPage().
//
// Thread: the UI thread.
#include "KeyedRowsModel.h"
#include "service/RequestLog.h"

#include <QtQml/qqmlregistration.h>

namespace sy::app {

class RequestLogModel : public KeyedRowsModel<service::RequestRecord, QByteArray> {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(QString keyName READ keyName WRITE setKeyName NOTIFY filterChanged)
    Q_PROPERTY(QString model READ model WRITE setModel NOTIFY filterChanged)
    // "" any, "ok" (2xx), "failed" (>= 400), or an exact status such as "429".
    Q_PROPERTY(QString status READ status WRITE setStatus NOTIFY filterChanged)
    Q_PROPERTY(bool failedOverOnly READ failedOverOnly WRITE setFailedOverOnly NOTIFY filterChanged)
    Q_PROPERTY(int limit READ limit WRITE setLimit NOTIFY filterChanged)
public:
    enum Role {
        RequestIdRole = Qt::UserRole + 1,
        TimeRole,              // "14:03:07.412", local time
        KeyNameRole,
        RequestedModelRole,
        AnsweringModelRole,
        ChannelRole,
        StatusRole,
        TotalMsRole,
        AttemptsRole,
        FailedOverRole,
        StreamRole,
        TokensRole,            // prompt + completion
        ErrorRole,
    };
    Q_ENUM(Role)

    explicit RequestLogModel(QObject *parent = nullptr);

    // The filter as the log understands it (`limit` rows at most).
    service::RequestFilter filter() const;
    // Brings the rows up to a page fetched with filter() (newest first).
    void setPage(std::vector<service::RequestRecord> records);

    int count() const { return rowCount(); }
    QString keyName() const { return m_keyName; }
    void setKeyName(const QString &keyName);
    QString model() const { return m_model; }
    void setModel(const QString &model);
    QString status() const { return m_status; }
    void setStatus(const QString &status);
    bool failedOverOnly() const { return m_failedOverOnly; }
    void setFailedOverOnly(bool failedOverOnly);
    int limit() const { return m_limit; }
    void setLimit(int limit);
    QHash<int, QByteArray> roleNames() const override;

signals:
    void countChanged();
    void filterChanged();

protected:
    QByteArray keyOf(const service::RequestRecord &row) const override { return row.id; }
    QVariant value(const service::RequestRecord &row, int role) const override;
    void onCountChanged() override { emit countChanged(); }

private:
    bool matches(const service::RequestRecord &record) const;
    void filterWasChanged();

    QString m_keyName;
    QString m_model;
    QString m_status;
    bool m_failedOverOnly = false;
    int m_limit = 200;
};

} // namespace sy::app
