#pragma once
// EditorController: the state machine every Configure editor (keys, channels, models, virtual
// models) shares — load a listing from the admin API, keep a selection by id across reloads,
// start a new entry, save it (POST when new, else the editor's update method on the entry's
// path), delete it, and show a refusal: its message, and the field the gateway names
// (`error.param`, e.g. "channels[0].models[0].id"). The forms stay in QML; they hand the
// controller a body and read its state.
//
// `api` is anything with `admin(method, target, body, callback(status, reply))` — the gateway
// host in the app, a plain QtObject in the QML tests (docs/admin-api.md). Replies arrive on the
// UI thread, possibly before admin() returns (the tests' stubs answer at once).
//
// Thread: the UI thread. Made by QML (JS ownership); does not own `api`.
#include <QObject>
#include <QQmlParserStatus>
#include <QPointer>
#include <QVariant>
#include <QtQml/qqmlregistration.h>
#include <QJSValue>
#include <functional>
#include <map>

namespace sy::app {

class EditorController : public QObject, public QQmlParserStatus {
    Q_OBJECT
    Q_INTERFACES(QQmlParserStatus)
    QML_ELEMENT
    Q_PROPERTY(QObject *api READ api WRITE setApi NOTIFY apiChanged)
    // The listing, e.g. "/admin/channels"; an entry's path is listPath + "/" + its id.
    Q_PROPERTY(QString listPath READ listPath WRITE setListPath NOTIFY listPathChanged)
    // The field that names an entry: "id", or "name" for keys.
    Q_PROPERTY(QString idField READ idField WRITE setIdField NOTIFY idFieldChanged)
    // "PUT" (the whole entry) or "PATCH" (the fields sent).
    Q_PROPERTY(QString updateMethod READ updateMethod WRITE setUpdateMethod NOTIFY updateMethodChanged)
    // True while the editor is shown: the listing is (re)loaded each time this turns true.
    Q_PROPERTY(bool active READ active WRITE setActive NOTIFY activeChanged)
    // After a load, select the first entry when nothing (known) is selected.
    Q_PROPERTY(bool selectFirst READ selectFirst WRITE setSelectFirst NOTIFY selectFirstChanged)

    Q_PROPERTY(QVariantList items READ items NOTIFY itemsChanged)
    Q_PROPERTY(QString selectedId READ selectedId WRITE select NOTIFY selectionChanged)
    Q_PROPERTY(QVariant selected READ selected NOTIFY selectionChanged)        // the entry, or null
    Q_PROPERTY(bool creating READ creating NOTIFY selectionChanged)
    Q_PROPERTY(bool busy READ busy NOTIFY busyChanged)                         // a call is on its way
    // The form holds edits the gateway has not taken (a save was refused); cleared by a good
    // save, a reload of another selection or markClean().
    Q_PROPERTY(bool dirty READ dirty WRITE setDirty NOTIFY dirtyChanged)
    Q_PROPERTY(QString error READ error NOTIFY errorChanged)                   // the listing failed to load
    Q_PROPERTY(QString formError READ formError NOTIFY formErrorChanged)       // a change was refused
    Q_PROPERTY(QString formErrorField READ formErrorField NOTIFY formErrorChanged)
    Q_PROPERTY(int formErrorStatus READ formErrorStatus NOTIFY formErrorChanged)
public:
    explicit EditorController(QObject *parent = nullptr);

    // Loads the listing now; keeps the selection when the entry is still listed.
    Q_INVOKABLE void reload();
    // Selects an entry by id ("" = none) and forgets a refusal shown for the previous one.
    Q_INVOKABLE void select(const QString &id);
    // An empty form for a new entry; save() then POSTs to listPath.
    Q_INVOKABLE void startNew();
    // Creates (POST listPath) or updates (updateMethod on the selected entry's path). On
    // success, selects the saved entry (body[idField] when creating) and reloads; on a refusal,
    // formError / formErrorField / formErrorStatus say why.
    Q_INVOKABLE void save(const QJSValue &body);
    // POST listPath from outside the form (e.g. the keys' name field): a refusal goes to `error`,
    // the selection stays; on success the new entry (body[idField]) is selected.
    Q_INVOKABLE void create(const QJSValue &body);
    // DELETE on the selected entry; on success nothing is selected and the listing reloads.
    Q_INVOKABLE void remove();
    // Any other change to the selected entry (e.g. POST …/reset-breaker; `suffix` is appended to
    // its path), with the same refusal handling.
    Q_INVOKABLE void act(const QString &method, const QString &suffix, const QJSValue &body);
    // A refusal found before anything was sent (the form's own check), shown like the gateway's.
    Q_INVOKABLE void refuse(const QString &field, const QString &message);
    // Path segment for an id: '/' is kept (model ids have them), the rest percent-encoded.
    Q_INVOKABLE QString entryPath(const QString &id) const;

    // Called back by the api (through the JS function admin() gets); not for QML code.
    Q_INVOKABLE void onReply(int tag, int status, const QJSValue &reply);

    QObject *api() const { return m_api; }
    void setApi(QObject *api);
    QString listPath() const { return m_listPath; }
    void setListPath(const QString &path);
    QString idField() const { return m_idField; }
    void setIdField(const QString &field);
    QString updateMethod() const { return m_updateMethod; }
    void setUpdateMethod(const QString &method);
    bool active() const { return m_active; }
    void setActive(bool active);
    bool selectFirst() const { return m_selectFirst; }
    void setSelectFirst(bool selectFirst);
    QVariantList items() const { return m_items; }
    QString selectedId() const { return m_selectedId; }
    QVariant selected() const;
    bool creating() const { return m_creating; }
    bool busy() const { return m_pending > 0; }
    bool dirty() const { return m_dirty; }
    void setDirty(bool dirty);
    QString error() const { return m_error; }
    QString formError() const { return m_formError; }
    QString formErrorField() const { return m_formErrorField; }
    int formErrorStatus() const { return m_formErrorStatus; }

    // The admin API's answer read as the editors show it: the message of {error: {message}},
    // else a text reply, else "refused (HTTP status)"; "" for a 2xx.
    static QString errorText(int status, const QVariant &reply);
    static QString errorField(const QVariant &reply);

    // Made by QML: the first load waits until every property is set.
    void classBegin() override { m_completed = false; }
    void componentComplete() override;

signals:
    void apiChanged();
    void listPathChanged();
    void idFieldChanged();
    void updateMethodChanged();
    void activeChanged();
    void selectFirstChanged();
    void itemsChanged();
    void selectionChanged();
    void busyChanged();
    void dirtyChanged();
    void errorChanged();
    void formErrorChanged();
    // The listing is being (re)loaded: editors load what their forms also need (e.g. model ids).
    void reloading();
    // A change went through (after which the listing reloads).
    void saved(const QString &method, const QVariant &reply);

private:
    using Handler = std::function<void(int status, const QVariant &reply)>;
    void call(const QString &method, const QString &target, const QJSValue &body, Handler handler);
    void change(const QString &method, const QString &target, const QJSValue &body, const QString &nextId);
    void setFormError(int status, const QString &message, const QString &field);
    void setError(const QString &error);
    bool isListed(const QString &id) const;

    QPointer<QObject> m_api;
    QString m_listPath;
    QString m_idField = QStringLiteral("id");
    QString m_updateMethod = QStringLiteral("PUT");
    bool m_active = false;
    bool m_selectFirst = true;
    bool m_completed = true;    // false between classBegin() and componentComplete()
    QVariantList m_items;
    QString m_selectedId;
    bool m_creating = false;
    bool m_dirty = false;
    QString m_error;
    QString m_formError;
    QString m_formErrorField;
    int m_formErrorStatus = 0;
    int m_pending = 0;
    int m_nextTag = 0;
    quint64 m_loadGeneration = 0;   // only the newest listing's answer is applied
    std::map<int, Handler> m_handlers;
};

} // namespace sy::app
