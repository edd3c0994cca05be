#include "service/ChannelTransport.h"

namespace sy::service {

void applyChannelTransport(const config::Channel &channel, upstream::UpstreamRequest &request)
{
    request.verifyTls = !channel.tls.insecure;
    request.caFile = channel.tls.caFile.toUtf8();
    request.proxy = channel.proxy.toUtf8();
}

void applyAuthStyle(const QString &auth, const QString &credential, http::HeaderList &headers)
{
    if (auth.isEmpty())
        return;
    headers.removeIf([](const QPair<QByteArray, QByteArray> &header) {
        return header.first.compare("authorization", Qt::CaseInsensitive) == 0
            || header.first.compare("x-api-key", Qt::CaseInsensitive) == 0
            || header.first.compare("api-key", Qt::CaseInsensitive) == 0
            || header.first.compare("x-goog-api-key", Qt::CaseInsensitive) == 0;
    });
    if (credential.isEmpty() || auth == u"none")
        return;
    const QByteArray secret = credential.toUtf8();
    if (auth == u"bearer")
        headers.append(qMakePair(QByteArray("authorization"), QByteArray("Bearer " + secret)));
    else if (auth == u"x-api-key")
        headers.append(qMakePair(QByteArray("x-api-key"), QByteArray(secret)));
    else if (auth == u"api-key")
        headers.append(qMakePair(QByteArray("api-key"), QByteArray(secret)));
    else if (auth == u"x-goog-api-key")
        headers.append(qMakePair(QByteArray("x-goog-api-key"), QByteArray(secret)));
}

} // namespace sy::service
