#pragma once
// TraceModel: the route trace of one request for the drill-down — the candidate channels in the
// order they were to be tried, the ones filtered out with the reason, every attempt made with
// status, latency and why the gateway moved on, and the notes on how the order was made. Each row
// has a `section` (candidates | filtered | attempts | notes); the request itself is described by
// the properties.
//
// Thread: the UI thread.
#include "service/RequestRecord.h"

#include <QAbstractListModel>
#include <QtQml/qqmlregistration.h>

namespace sy::app {

class TraceModel : public QAbstractListModel {
    Q_OBJECT
    QML_ELEMENT
    Q_PROPERTY(bool loaded READ loaded NOTIFY requestChanged)
    Q_PROPERTY(QString requestId READ requestId NOTIFY requestChanged)
    Q_PROPERTY(QString time READ time NOTIFY requestChanged)
    Q_PROPERTY(QString keyName READ keyName NOTIFY requestChanged)
    Q_PROPERTY(QString requestedModel READ requestedModel NOTIFY requestChanged)
    Q_PROPERTY(QStringList chain READ chain NOTIFY requestChanged)
    Q_PROPERTY(QString answeringModel READ answeringModel NOTIFY requestChanged)
    Q_PROPERTY(QString answeringChannel READ answeringChannel NOTIFY requestChanged)
    Q_PROPERTY(int status READ status NOTIFY requestChanged)
    Q_PROPERTY(QString error READ error NOTIFY requestChanged)
    Q_PROPERTY(bool stream READ stream NOTIFY requestChanged)
    Q_PROPERTY(bool failedOver READ failedOver NOTIFY requestChanged)
    Q_PROPERTY(double totalMs READ totalMs NOTIFY requestChanged)
    Q_PROPERTY(double queueMs READ queueMs NOTIFY requestChanged)
    Q_PROPERTY(int count READ count NOTIFY requestChanged)
public:
    enum Role {
        SectionRole = Qt::UserRole + 1,
        PositionRole,      // 1-based within its section
        ChannelRole,
        ModelRole,
        StatusRole,        // attempts: ok | error | simulated_fail | …; candidates: "answered" or ""
        LatencyMsRole,     // -1 when unknown
        ReasonRole,        // why the gateway moved on / why it was filtered / the note
    };
    Q_ENUM(Role)

    explicit TraceModel(QObject *parent = nullptr);

    // Shows `record`; a different request resets the model, the same one is left alone.
    void setRecord(const service::RequestRecord &record);
    // Shows nothing (the request is no longer in the log).
    void clear();

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    bool loaded() const { return m_loaded; }
    QString requestId() const { return QString::fromLatin1(m_record.id); }
    QString time() const;
    QString keyName() const { return m_record.keyName; }
    QString requestedModel() const { return m_record.requestedModel; }
    QStringList chain() const { return m_record.chain; }
    QString answeringModel() const { return m_record.answeringModel; }
    QString answeringChannel() const { return m_record.answeringChannel; }
    int status() const { return m_record.status; }
    QString error() const { return m_record.errorMessage; }
    bool stream() const { return m_record.stream; }
    bool failedOver() const { return m_loaded && m_record.failedOver(); }
    double totalMs() const { return double(m_record.totalMs); }
    double queueMs() const { return double(m_record.queueMs); }
    int count() const { return rowCount(); }

signals:
    void requestChanged();

private:
    struct Row {
        QString section;
        int position = 0;
        QString channel;
        QString model;
        QString status;
        qint64 latencyMs = -1;
        QString reason;
    };
    static std::vector<Row> rowsOf(const service::RequestRecord &record);

    bool m_loaded = false;
    service::RequestRecord m_record;
    std::vector<Row> m_rows;
};

} // namespace sy::app
