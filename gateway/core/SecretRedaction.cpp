#include "core/SecretRedaction.h"

#include <QRegularExpression>

namespace sy {

namespace {

const QRegularExpression &keyShapes()
{
    static const QRegularExpression re(
        QStringLiteral(R"((?:\b(?:sk-|sk_|gsk_|xai-|AIza)[A-Za-z0-9_\-]{8,})|(?:(?<=Bearer )[A-Za-z0-9_\-.=]{8,}))"));
    return re;
}

} // namespace

QString redactSecrets(const QString &text, const QStringList &secrets)
{
    QString out = text;
    for (const QString &secret : secrets) {
        if (secret.size() >= 8)
            out.replace(secret, QLatin1String(kRedacted));
    }
    out.replace(keyShapes(), QLatin1String(kRedacted));
    return out;
}

QByteArray redactSecrets(const QByteArray &text, const QStringList &secrets)
{
    // Fast path: most bodies contain neither a secret nor a key prefix.
    bool suspicious = text.contains("sk-") || text.contains("sk_") || text.contains("AIza") || text.contains("xai-")
        || text.contains("Bearer ");
    for (const QString &secret : secrets)
        suspicious = suspicious || (secret.size() >= 8 && text.contains(secret.toUtf8()));
    if (!suspicious)
        return text;
    return redactSecrets(QString::fromUtf8(text), secrets).toUtf8();
}

} // namespace sy
