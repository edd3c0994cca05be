#include "support/TestCertificates.h"

#include <QFile>
#include <QProcess>
#include <QSslCertificate>
#include <QSslKey>

namespace sy::test {

TestCertificates::TestCertificates()
{
    if (!m_dir.isValid()) {
        m_error = QStringLiteral("no temporary folder");
        return;
    }
    QFile extensions(m_dir.filePath(QStringLiteral("server.ext")));
    if (!extensions.open(QIODevice::WriteOnly)) {
        m_error = QStringLiteral("cannot write server.ext");
        return;
    }
    extensions.write("basicConstraints=CA:FALSE\n"
                     "keyUsage=digitalSignature,keyEncipherment\n"
                     "extendedKeyUsage=serverAuth\n"
                     "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    extensions.close();
    const QString dir = m_dir.path() + u'/';
    m_ok = run({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", dir + "ca.key", "-out", dir + "ca.pem", "-days", "2", "-subj", "/CN=Switchyard Test CA"})
        && run({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", dir + "server.key", "-out", dir + "server.csr", "-subj", "/CN=127.0.0.1"})
        && run({"x509", "-req", "-in", dir + "server.csr", "-CA", dir + "ca.pem", "-CAkey", dir + "ca.key",
                "-CAcreateserial", "-out", dir + "server.pem", "-days", "2", "-extfile", dir + "server.ext"});
}

bool TestCertificates::run(const QStringList &arguments)
{
    QProcess openssl;
    openssl.setProcessChannelMode(QProcess::MergedChannels);
    openssl.start(QStringLiteral("openssl"), arguments);
    if (!openssl.waitForFinished(30'000) || openssl.exitStatus() != QProcess::NormalExit || openssl.exitCode() != 0) {
        m_error = QStringLiteral("openssl %1 failed: %2 %3")
                      .arg(arguments.first(), openssl.errorString(), QString::fromUtf8(openssl.readAll()));
        return false;
    }
    return true;
}

QSslConfiguration TestCertificates::serverTls() const
{
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    QFile cert(serverCertFile());
    QFile key(serverKeyFile());
    if (cert.open(QIODevice::ReadOnly))
        tls.setLocalCertificate(QSslCertificate(cert.readAll(), QSsl::Pem));
    if (key.open(QIODevice::ReadOnly))
        tls.setPrivateKey(QSslKey(key.readAll(), QSsl::Ec, QSsl::Pem));
    tls.setPeerVerifyMode(QSslSocket::VerifyNone);
    return tls;
}

} // namespace sy::test
