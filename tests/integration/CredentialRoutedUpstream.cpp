#include "CredentialRoutedUpstream.h"

namespace sy::integration {

CredentialRoutedUpstream::CredentialRoutedUpstream(QHash<QByteArray, QByteArray> providerByCredential)
    : m_providerByCredential(std::move(providerByCredential))
{
}

upstream::TransferId CredentialRoutedUpstream::send(upstream::UpstreamRequest request, upstream::StreamHandler *handler)
{
    const QByteArray authorization = http::headerValue(request.headers, "authorization");
    const QByteArray credential = authorization.startsWith("Bearer ") ? authorization.mid(7) : QByteArray();
    const auto provider = m_providerByCredential.constFind(credential);
    const qsizetype v1 = request.url.indexOf("/v1/");
    if (provider != m_providerByCredential.cend() && v1 > 0) {
        const qsizetype segmentStart = request.url.lastIndexOf('/', v1 - 1) + 1;
        request.url = request.url.left(segmentStart) + *provider + request.url.mid(v1);
    }
    return m_real.send(std::move(request), handler);
}

} // namespace sy::integration
