#include "EditorController.h"

#include <QJSEngine>
#include <QUrl>
#include <algorithm>

namespace sy::app {

namespace {
bool ok(int status) { return status >= 200 && status < 300; }
}

EditorController::EditorController(QObject *parent)
    : QObject(parent)
{
}

void EditorController::componentComplete()
{
    m_completed = true;
    if (m_active)
        reload();
}

QString EditorController::errorText(int status, const QVariant &reply)
{
    if (ok(status))
        return {};
    const QVariantMap error = reply.toMap().value(QStringLiteral("error")).toMap();
    const QString message = error.value(QStringLiteral("message")).toString();
    if (!message.isEmpty())
        return message;
    if (reply.typeId() == QMetaType::QString && !reply.toString().isEmpty())
        return reply.toString();
    return tr("The gateway refused the change (HTTP %1).").arg(status);
}

QString EditorController::errorField(const QVariant &reply)
{
    const QVariant param = reply.toMap().value(QStringLiteral("error")).toMap().value(QStringLiteral("param"));
    return param.isNull() ? QString() : param.toString();
}

QString EditorController::entryPath(const QString &id) const
{
    QStringList parts = id.split(QLatin1Char('/'));
    for (QString &part : parts)
        part = QString::fromLatin1(QUrl::toPercentEncoding(part));
    return m_listPath + QLatin1Char('/') + parts.join(QLatin1Char('/'));
}

void EditorController::call(const QString &method, const QString &target, const QJSValue &body, Handler handler)
{
    QJSEngine *engine = qjsEngine(this);
    if (!m_api || !engine) {
        handler(503, QVariantMap{{QStringLiteral("error"),
                                  QVariantMap{{QStringLiteral("message"), tr("The gateway is not running.")}}}});
        return;
    }
    // A parentless api (the app's host lives on main()'s stack) must never become JS-owned.
    if (!m_api->parent())
        QJSEngine::setObjectOwnership(m_api, QJSEngine::CppOwnership);
    const int tag = ++m_nextTag;
    m_handlers.emplace(tag, std::move(handler));
    ++m_pending;
    if (m_pending == 1)
        emit busyChanged();
    // The callback the api gets: a JS function that hands the answer back to onReply(tag, …).
    static const char *const kBind = "(function (controller, tag) {"
                                     " return function (status, reply) { controller.onReply(tag, status, reply) } })";
    const QJSValue callback = engine->evaluate(QString::fromLatin1(kBind)).call({engine->newQObject(this), tag});
    const QJSValue api = engine->newQObject(m_api);
    const QJSValue result = api.property(QStringLiteral("admin"))
                                .callWithInstance(api, {QJSValue(method), QJSValue(target), body, callback});
    if (result.isError()) {
        qWarning("admin %s %s failed: %s", qPrintable(method), qPrintable(target), qPrintable(result.toString()));
        onReply(tag, 500, QJSValue(result.toString()));
    }
}

void EditorController::onReply(int tag, int status, const QJSValue &reply)
{
    const auto found = m_handlers.find(tag);
    if (found == m_handlers.end())
        return;
    Handler handler = std::move(found->second);
    m_handlers.erase(found);
    --m_pending;
    handler(status, reply.toVariant());
    if (m_pending == 0)
        emit busyChanged();
}

void EditorController::reload()
{
    if (m_listPath.isEmpty())
        return;
    const quint64 generation = ++m_loadGeneration;
    emit reloading();
    call(QStringLiteral("GET"), m_listPath, QJSValue(QJSValue::UndefinedValue), [this, generation](int status, const QVariant &reply) {
        if (generation != m_loadGeneration)
            return;   // a newer load is on its way
        setError(errorText(status, reply));
        if (!ok(status))
            return;
        m_items = reply.toList();
        emit itemsChanged();
        if (!m_creating && !isListed(m_selectedId) && m_selectFirst && !m_items.isEmpty()) {
            m_selectedId = m_items.first().toMap().value(m_idField).toString();
            setFormError(0, {}, {});
        }
        emit selectionChanged();   // `selected` is a new object even when the id stays
    });
}

bool EditorController::isListed(const QString &id) const
{
    if (id.isEmpty())
        return false;
    return std::any_of(m_items.begin(), m_items.end(),
                       [&](const QVariant &item) { return item.toMap().value(m_idField).toString() == id; });
}

QVariant EditorController::selected() const
{
    for (const QVariant &item : m_items) {
        if (!m_selectedId.isEmpty() && item.toMap().value(m_idField).toString() == m_selectedId)
            return item;
    }
    return QVariant::fromValue(nullptr);
}

void EditorController::select(const QString &id)
{
    const bool changed = m_creating || id != m_selectedId;
    m_creating = false;
    m_selectedId = id;
    setFormError(0, {}, {});
    setDirty(false);
    if (changed)
        emit selectionChanged();
}

void EditorController::startNew()
{
    select(QString());
    m_creating = true;
    emit selectionChanged();
}

void EditorController::change(const QString &method, const QString &target, const QJSValue &body, const QString &nextId)
{
    call(method, target, body, [this, method, nextId](int status, const QVariant &reply) {
        setFormError(ok(status) ? 0 : status, errorText(status, reply), ok(status) ? QString() : errorField(reply));
        if (!ok(status)) {
            setDirty(true);
            return;
        }
        setDirty(false);
        m_creating = false;
        m_selectedId = nextId;
        emit selectionChanged();
        emit saved(method, reply);
        reload();
    });
}

void EditorController::save(const QJSValue &body)
{
    if (m_creating)
        change(QStringLiteral("POST"), m_listPath, body, body.property(m_idField).toString());
    else if (!m_selectedId.isEmpty())
        change(m_updateMethod, entryPath(m_selectedId), body, m_selectedId);
}

void EditorController::create(const QJSValue &body)
{
    const QString id = body.property(m_idField).toString();
    call(QStringLiteral("POST"), m_listPath, body, [this, id](int status, const QVariant &reply) {
        setError(errorText(status, reply));
        if (!ok(status))
            return;
        select(id);
        emit saved(QStringLiteral("POST"), reply);
        reload();
    });
}

void EditorController::remove()
{
    if (!m_creating && !m_selectedId.isEmpty())
        change(QStringLiteral("DELETE"), entryPath(m_selectedId), QJSValue(QJSValue::UndefinedValue), QString());
}

void EditorController::act(const QString &method, const QString &suffix, const QJSValue &body)
{
    if (!m_selectedId.isEmpty())
        change(method, entryPath(m_selectedId) + suffix, body, method == QLatin1String("DELETE") ? QString() : m_selectedId);
}

void EditorController::refuse(const QString &field, const QString &message)
{
    setFormError(0, message, field);
}

void EditorController::setFormError(int status, const QString &message, const QString &field)
{
    if (status == m_formErrorStatus && message == m_formError && field == m_formErrorField)
        return;
    m_formErrorStatus = status;
    m_formError = message;
    m_formErrorField = field;
    emit formErrorChanged();
}

void EditorController::setError(const QString &error)
{
    if (error == m_error)
        return;
    m_error = error;
    emit errorChanged();
}

void EditorController::setDirty(bool dirty)
{
    if (dirty == m_dirty)
        return;
    m_dirty = dirty;
    emit dirtyChanged();
}

void EditorController::setApi(QObject *api)
{
    if (api == m_api)
        return;
    m_api = api;
    emit apiChanged();
}

void EditorController::setListPath(const QString &path)
{
    if (path == m_listPath)
        return;
    m_listPath = path;
    emit listPathChanged();
}

void EditorController::setIdField(const QString &field)
{
    if (field == m_idField)
        return;
    m_idField = field;
    emit idFieldChanged();
}

void EditorController::setUpdateMethod(const QString &method)
{
    if (method == m_updateMethod)
        return;
    m_updateMethod = method;
    emit updateMethodChanged();
}

void EditorController::setActive(bool active)
{
    if (active == m_active)
        return;
    m_active = active;
    emit activeChanged();
    if (m_active && m_completed)
        reload();
}

void EditorController::setSelectFirst(bool selectFirst)
{
    if (selectFirst == m_selectFirst)
        return;
    m_selectFirst = selectFirst;
    emit selectFirstChanged();
}

} // namespace sy::app
