#pragma once
// SecretRedaction: upstream texts (error messages, error bodies) may repeat the API key they were
// sent ("Incorrect API key provided: sk-…"). Before such a text is stored, logged or returned,
// every credential of the channel and anything shaped like a provider key is replaced.
// Pure; any thread.
#include <QByteArray>
#include <QString>
#include <QStringList>

namespace sy {

inline constexpr char kRedacted[] = "[redacted]";

// `text` with each of `secrets` (ignored when shorter than 8 characters) and every key-shaped
// token — `sk-`, `sk_`, `AIza`, `xai-`, `gsk_` prefixes followed by 8 or more key characters,
// and `Bearer <token>` — replaced by "[redacted]".
QString redactSecrets(const QString &text, const QStringList &secrets);
QByteArray redactSecrets(const QByteArray &text, const QStringList &secrets);

} // namespace sy
