// AdminApi, configuration routes: export/import, channels, models, virtual models, keys,
// settings, default model. Every edit goes through applyDocument() (validation as a whole).
#include "config/ConfigLoader.h"
#include "config/ConfigWriter.h"
#include "service/AdminCall.h"
#include "service/GatewayService.h"

#include <QCryptographicHash>
#include <QRandomGenerator>
#include <QUrlQuery>

namespace sy::service {

namespace {

// Credentials are write-only: listings show how many there are, never what they are.
QJsonObject redactChannel(QJsonObject channel)
{
    const int count = int(channel.value("credentials").toArray().size());
    channel.remove("credentials");
    channel.insert("credential_count", count);
    // Verification switched off is shown as a warning on the channel's tile.
    channel.insert("tls_insecure", channel.value("tls").toObject().value("insecure").toBool());
    return channel;
}

QJsonObject redact(const char *section, const QJsonObject &item)
{
    return qstrcmp(section, "channels") == 0 ? redactChannel(item) : item;
}

int indexOf(const QJsonArray &items, const char *idField, const QString &id)
{
    for (int i = 0; i < items.size(); ++i) {
        if (items.at(i).toObject().value(QLatin1String(idField)).toString() == id)
            return i;
    }
    return -1;
}

// `patch` over `base`, one level deep for plain fields and objects (timeouts, price) merged too.
QJsonObject merged(QJsonObject base, const QJsonObject &patch)
{
    for (auto it = patch.begin(); it != patch.end(); ++it) {
        if (it.value().isObject() && base.value(it.key()).isObject())
            base.insert(it.key(), merged(base.value(it.key()).toObject(), it.value().toObject()));
        else
            base.insert(it.key(), it.value());
    }
    return base;
}

QByteArray newKeySecret()
{
    quint64 words[3];
    QRandomGenerator::system()->fillRange(words);
    QByteArray secret = "sk-sy-";
    for (quint64 w : words)
        secret += QByteArray::number(w, 16).rightJustified(16, '0');
    return secret;
}

} // namespace

void AdminApi::handleConfig(Call &call)
{
    if (call.path.size() != 1)
        return call.notFound();
    if (call.method() == "GET") {
        const QUrlQuery &query = call.request.query;
        const auto secrets = query.queryItemValue("secrets") == QLatin1String("1") ? config::Secrets::Include : config::Secrets::Omit;
        const bool json = query.queryItemValue("format") == QLatin1String("json");
        const config::WriteResult written = json ? config::writeConfigJson(m_gateway.workspace()->config(), secrets)
                                                 : config::writeConfigYaml(m_gateway.workspace()->config(), secrets);
        if (!written.document)
            return call.fail(500, QStringLiteral("The configuration cannot be written: %1").arg(written.errors.front().message));
        return call.replyRaw(200, json ? "application/json" : "application/yaml", *written.document);
    }
    if (call.method() == "PUT") {
        // A whole configuration file (YAML or JSON). Environment variables are not expanded here.
        config::LoadResult loaded = config::loadConfigText(call.request.body, QStringLiteral("<admin>"), QProcessEnvironment());
        if (!loaded.config) {
            QStringList messages;
            for (const config::ConfigError &e : loaded.errors)
                messages << e.toString();
            return call.fail(400, QStringLiteral("The configuration was refused as a whole: %1").arg(messages.join(QStringLiteral("; "))),
                             loaded.errors.front().field);
        }
        m_gateway.applyConfig(std::move(*loaded.config));
        return call.reply(200, QJsonObject{{"status", "applied"}});
    }
    call.methodNotAllowed();
}

void AdminApi::handleCollection(Call &call, const char *section, const char *idField)
{
    QJsonObject document = currentDocument();
    QJsonArray items = document.value(QLatin1String(section)).toArray();
    const QString id = call.path.mid(1).join(QLatin1Char('/'));   // model ids contain '/'

    if (call.method() == "GET") {
        if (id.isEmpty()) {
            QJsonArray out;
            for (const QJsonValue &item : items)
                out.append(redact(section, item.toObject()));
            return call.reply(200, out);
        }
        const int at = indexOf(items, idField, id);
        if (at < 0)
            return call.fail(404, QStringLiteral("No %1 with id '%2'.").arg(QLatin1String(section), id));
        return call.reply(200, redact(section, items.at(at).toObject()));
    }
    if (call.method() == "POST" && id.isEmpty()) {
        const auto body = call.bodyObject();
        if (!body)
            return;
        const QString newId = body->value(QLatin1String(idField)).toString();
        if (newId.isEmpty())
            return call.fail(400, QStringLiteral("'%1' is required.").arg(QLatin1String(idField)), QLatin1String(idField));
        if (indexOf(items, idField, newId) >= 0)
            return call.fail(409, QStringLiteral("A %1 entry with id '%2' already exists.").arg(QLatin1String(section), newId),
                             QLatin1String(idField));
        items.append(*body);
        document.insert(QLatin1String(section), items);
        applyDocument(call, document, 201, redact(section, *body));
        return;
    }
    if ((call.method() == "PUT" || call.method() == "PATCH") && !id.isEmpty()) {
        const auto body = call.bodyObject();
        if (!body)
            return;
        const int at = indexOf(items, idField, id);
        if (at < 0)
            return call.fail(404, QStringLiteral("No %1 with id '%2'.").arg(QLatin1String(section), id));
        QJsonObject item = merged(items.at(at).toObject(), *body);
        item.insert(QLatin1String(idField), id);  // the id is the URL's; renaming is delete + create
        items.replace(at, item);
        document.insert(QLatin1String(section), items);
        applyDocument(call, document, 200, redact(section, item));
        return;
    }
    if (call.method() == "DELETE" && !id.isEmpty()) {
        const int at = indexOf(items, idField, id);
        if (at < 0)
            return call.fail(404, QStringLiteral("No %1 with id '%2'.").arg(QLatin1String(section), id));
        items.removeAt(at);
        document.insert(QLatin1String(section), items);
        applyDocument(call, document, 200, QJsonObject{{"deleted", id}});
        return;
    }
    call.methodNotAllowed();
}

void AdminApi::handleKeys(Call &call)
{
    if (call.path.size() == 3 && call.path.at(2) == QLatin1String("reset-breaker")) {
        if (call.method() != "POST")
            return call.methodNotAllowed();
        return handleBreakerReset(call, call.path.at(1));
    }
    QJsonObject document = currentDocument();
    QJsonArray keys = document.value("keys").toArray();
    const QString name = call.path.mid(1).join(QLatin1Char('/'));
    auto describe = [this](QJsonObject key) {
        key.remove("secret_sha256");  // not a secret, but nothing a client needs either
        const QString keyName = key.value("name").toString();
        key.insert("breaker", QString::fromLatin1(limits::breakerStateName(m_gateway.state().breaker.state(keyName))));
        key.insert("spent", double(m_gateway.state().ledger.keySpent(keyName)) / 1e9);
        return key;
    };

    if (call.method() == "GET") {
        if (name.isEmpty()) {
            QJsonArray out;
            for (const QJsonValue &key : keys)
                out.append(describe(key.toObject()));
            return call.reply(200, out);
        }
        const int at = indexOf(keys, "name", name);
        return at < 0 ? call.fail(404, QStringLiteral("No key named '%1'.").arg(name)) : call.reply(200, describe(keys.at(at).toObject()));
    }
    if (call.method() == "POST" && name.isEmpty()) {
        auto body = call.bodyObject();
        if (!body)
            return;
        if (body->contains("secret") || body->contains("secret_sha256"))
            return call.fail(400, QStringLiteral("The gateway makes the secret; do not send one."), QStringLiteral("secret"));
        const QString newName = body->value("name").toString();
        if (newName.isEmpty())
            return call.fail(400, QStringLiteral("'name' is required."), QStringLiteral("name"));
        if (indexOf(keys, "name", newName) >= 0)
            return call.fail(409, QStringLiteral("A key named '%1' already exists.").arg(newName), QStringLiteral("name"));
        const QByteArray secret = newKeySecret();
        body->insert("secret_sha256", QString::fromLatin1(QCryptographicHash::hash(secret, QCryptographicHash::Sha256).toHex()));
        keys.append(*body);
        document.insert("keys", keys);
        // The secret is in this answer and nowhere else, ever: it is stored only as a hash.
        QJsonObject answer = describe(*body);
        answer.insert("secret", QString::fromLatin1(secret));
        applyDocument(call, document, 201, answer);
        return;
    }
    if ((call.method() == "PUT" || call.method() == "PATCH") && !name.isEmpty()) {
        const auto body = call.bodyObject();
        if (!body)
            return;
        if (body->contains("secret") || body->contains("secret_sha256"))
            return call.fail(400, QStringLiteral("A key's secret cannot be changed; create a new key."), QStringLiteral("secret"));
        const int at = indexOf(keys, "name", name);
        if (at < 0)
            return call.fail(404, QStringLiteral("No key named '%1'.").arg(name));
        QJsonObject key = merged(keys.at(at).toObject(), *body);
        key.insert("name", name);
        keys.replace(at, key);
        document.insert("keys", keys);
        if (body->value("enabled").toBool(false))
            m_gateway.state().breaker.reset(name);  // re-enabling a key also clears its breaker
        applyDocument(call, document, 200, describe(key));
        return;
    }
    if (call.method() == "DELETE" && !name.isEmpty()) {
        const int at = indexOf(keys, "name", name);
        if (at < 0)
            return call.fail(404, QStringLiteral("No key named '%1'.").arg(name));
        keys.removeAt(at);
        document.insert("keys", keys);
        applyDocument(call, document, 200, QJsonObject{{"deleted", name}});
        return;
    }
    call.methodNotAllowed();
}

void AdminApi::handleBreakerReset(Call &call, const QString &keyName)
{
    m_gateway.state().breaker.reset(keyName);
    call.reply(200, QJsonObject{{"name", keyName}, {"breaker", "closed"}});
}

void AdminApi::handleSettings(Call &call)
{
    QJsonObject document = currentDocument();
    if (call.method() == "GET")
        return call.reply(200, document.value("settings").toObject());
    if (call.method() == "PUT" || call.method() == "PATCH") {
        const auto body = call.bodyObject();
        if (!body)
            return;
        const QJsonObject settings = merged(document.value("settings").toObject(), *body);
        document.insert("settings", settings);
        applyDocument(call, document, 200, settings);
        return;
    }
    call.methodNotAllowed();
}

void AdminApi::handleDefaultModel(Call &call)
{
    QJsonObject document = currentDocument();
    if (call.method() == "GET")
    {
        const QJsonValue current = document.value("default_model");
        return call.reply(200, QJsonObject{{"default_model", current.isString() ? current : QJsonValue(QJsonValue::Null)}});
    }
    if (call.method() == "PUT") {
        const auto body = call.bodyObject();
        if (!body)
            return;
        const QJsonValue model = body->value("default_model");
        if (!model.isString() && !model.isNull())
            return call.fail(400, QStringLiteral("'default_model' must be a model id or null."), QStringLiteral("default_model"));
        if (model.isNull())
            document.remove("default_model");
        else
            document.insert("default_model", model);
        applyDocument(call, document, 200, QJsonObject{{"default_model", model}});
        return;
    }
    call.methodNotAllowed();
}

} // namespace sy::service
