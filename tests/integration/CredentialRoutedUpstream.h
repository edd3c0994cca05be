#pragma once
// CredentialRoutedUpstream: the production libcurl client with one test-only twist. The simulator
// ignores credentials, so to let a rule fail one credential of a channel and not another, a
// request sent with a listed credential goes to the simulator provider named for it: the path
// segment before `/v1/` of the channel's base URL is replaced, e.g. `/alpha/v1/...` sent with
// credential "alpha-k1" becomes `/alpha-k1/v1/...`. Other requests pass unchanged.
//
// Thread: the gateway thread (the wrapped client's contract applies).
#include "upstream/CurlUpstreamClient.h"

#include <QHash>

namespace sy::integration {

class CredentialRoutedUpstream final : public upstream::UpstreamClient {
public:
    // `providerByCredential`: credential secret → simulator provider segment.
    explicit CredentialRoutedUpstream(QHash<QByteArray, QByteArray> providerByCredential);

    upstream::TransferId send(upstream::UpstreamRequest request, upstream::StreamHandler *handler) override;
    void cancel(upstream::TransferId id) override { m_real.cancel(id); }
    int activeTransfers() const override { return m_real.activeTransfers(); }

private:
    QHash<QByteArray, QByteArray> m_providerByCredential;
    upstream::CurlUpstreamClient m_real;
};

} // namespace sy::integration
