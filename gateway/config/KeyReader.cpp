// `keys:` — gateway keys issued to local programs. A key's secret is hashed as soon as it is read
// and only the hash enters the Config; no error text ever includes a secret or its hash.
#include "config/Sections.h"

#include <QCryptographicHash>
#include <QRegularExpression>

namespace sy::config::detail {

namespace {

void readSecret(Reader &reader, MapView &map, Key &key, KeyMarks &marks)
{
    const YAML::Node *plain = map.get("secret");
    const YAML::Node *hashed = map.get("secret_sha256");
    marks.secret = map.whereOf(hashed && !plain ? "secret_sha256" : "secret");
    if (plain && hashed) {
        reader.fail(map.whereOf("secret_sha256"),
                    QStringLiteral("give either secret or secret_sha256, not both"));
        return;
    }
    if (!plain && !hashed) {
        reader.fail(marks.secret, QStringLiteral("missing required field (secret or secret_sha256)"));
        return;
    }
    if (plain) {
        const std::optional<QString> secret = reader.text(*plain, map.field("secret"));
        if (!secret)
            return;
        if (secret->isEmpty()) {
            reader.fail(marks.secret, QStringLiteral("must not be empty"));
            return;
        }
        key.secretSha256 =
            QCryptographicHash::hash(secret->toUtf8(), QCryptographicHash::Sha256).toHex();
        return;
    }
    const std::optional<QString> hex = reader.text(*hashed, map.field("secret_sha256"));
    if (!hex)
        return;
    static const QRegularExpression sha256Hex(QStringLiteral("^[0-9A-Fa-f]{64}$"));
    if (!sha256Hex.match(*hex).hasMatch()) {
        reader.fail(marks.secret, QStringLiteral("expected 64 hexadecimal digits (a SHA-256 hash)"));
        return;
    }
    key.secretSha256 = hex->toLower().toLatin1();
}

void readKey(Reader &reader, const YAML::Node &node, const QString &path, Key &key,
             KeyMarks &marks)
{
    MapView map(reader, node, path,
                {"name", "secret", "secret_sha256", "rpm", "max_concurrent", "spend_limit",
                 "allowed_models", "enabled"});
    marks.name = map.whereOf("name");
    marks.secret = map.whereOf("secret");
    if (!map.isMap())
        return;
    if (const YAML::Node *name = map.require("name"))
        if (auto v = reader.text(*name, map.field("name"))) {
            if (isPlainIdentifier(*v))
                key.name = *v;
            else
                reader.fail(marks.name, QStringLiteral("must be non-empty, without spaces"));
        }
    readSecret(reader, map, key, marks);
    map.read("rpm", key.rpm, Range::between(0, 1'000'000));
    map.read("max_concurrent", key.maxConcurrent, Range::between(0, 1'000'000));
    if (const YAML::Node *limit = map.get("spend_limit"))
        if (auto v = reader.number(*limit, map.field("spend_limit"), Range::atLeast(0)))
            key.spendLimit = *v;
    if (const YAML::Node *allowed = map.get("allowed_models");
        allowed && reader.expectList(*allowed, map.field("allowed_models"))) {
        std::size_t i = 0;
        for (auto it = allowed->begin(); it != allowed->end(); ++it, ++i) {
            const QString field = indexField(map.field("allowed_models"), i);
            if (auto v = reader.text(*it, field)) {
                key.allowedModels.append(*v);
                marks.allowedModels.push_back(reader.where(*it, field));
            }
        }
    }
    map.read("enabled", key.enabled);
}

} // namespace

void readKeys(Reader &reader, const YAML::Node &list, const QString &field, std::vector<Key> &keys,
              std::vector<KeyMarks> &marks)
{
    readEach(reader, list, field, keys, marks, readKey);
}

} // namespace sy::config::detail
