#pragma once
// TestCertificates: a throw-away certificate authority and a server certificate it signed for
// 127.0.0.1 / localhost, made with the `openssl` tool in a temporary folder that lives as long
// as the object. For HTTPS tests: the server uses serverTls(), the client trusts caFile().
// Thread: any (construct once per test).
#include <QByteArray>
#include <QSslConfiguration>
#include <QSslKey>
#include <QString>
#include <QTemporaryDir>

namespace sy::test {

class TestCertificates {
public:
    TestCertificates();

    // False (with error()) when openssl failed; tests then fail with that text.
    bool ok() const { return m_ok; }
    const QString &error() const { return m_error; }

    QString caFile() const { return m_dir.filePath(QStringLiteral("ca.pem")); }
    QString serverCertFile() const { return m_dir.filePath(QStringLiteral("server.pem")); }
    QString serverKeyFile() const { return m_dir.filePath(QStringLiteral("server.key")); }
    // The server side: certificate + key, no client certificate asked.
    QSslConfiguration serverTls() const;

private:
    bool run(const QStringList &arguments);

    QTemporaryDir m_dir;
    bool m_ok = false;
    QString m_error;
};

} // namespace sy::test
