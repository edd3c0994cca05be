#include "upstream/CurlErrors.h"
#include "upstream/UpstreamClient.h"

#include <cerrno>
#include <cstring>
#include <sys/eventfd.h>
#include <unistd.h>

namespace sy::upstream {

const char *errorKindName(UpstreamErrorKind kind)
{
    switch (kind) {
    case UpstreamErrorKind::Connect: return "connect";
    case UpstreamErrorKind::FirstByteTimeout: return "first_byte_timeout";
    case UpstreamErrorKind::IdleTimeout: return "idle_timeout";
    case UpstreamErrorKind::Reset: return "reset";
    case UpstreamErrorKind::ReusedConnectionLost: return "reused_connection_lost";
    case UpstreamErrorKind::Protocol: return "protocol";
    case UpstreamErrorKind::LocalResources: return "local_resources";
    case UpstreamErrorKind::Other: return "other";
    }
    return "other";
}

namespace detail {

UpstreamErrorKind classifyCurlResult(CURLcode code, bool requestStarted)
{
    switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_USE_SSL_FAILED:
        return UpstreamErrorKind::Connect;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2_STREAM:
        return UpstreamErrorKind::Reset;
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_HTTP2:
    case CURLE_HTTP3:
        return UpstreamErrorKind::Protocol;
    case CURLE_UNSUPPORTED_PROTOCOL:
        return requestStarted ? UpstreamErrorKind::Protocol : UpstreamErrorKind::Other;
    default:
        return UpstreamErrorKind::Other;
    }
}

namespace {

bool isShortage(int error)
{
    return error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM;
}

// Whether this process could open a descriptor at this moment; the errno when it cannot.
int descriptorShortageNow()
{
    const int fd = ::eventfd(0, EFD_CLOEXEC);
    if (fd >= 0) {
        ::close(fd);
        return 0;
    }
    return isShortage(errno) ? errno : 0;
}

} // namespace

std::optional<QString> localShortage(CURLcode code, int socketErrno)
{
    if (code != CURLE_COULDNT_CONNECT && code != CURLE_COULDNT_RESOLVE_HOST && code != CURLE_COULDNT_RESOLVE_PROXY)
        return std::nullopt;
    // The socket's own errno when curl's socket() failed; otherwise (the resolver's descriptors)
    // a look at whether the process can open one now.
    const int error = isShortage(socketErrno) ? socketErrno : descriptorShortageNow();
    if (!error)
        return std::nullopt;
    if (error == EMFILE || error == ENFILE) {
        return QStringLiteral("the gateway cannot open a connection: %1 (%2 open-file limit reached); raise "
                              "the limit or lower the channels' max_concurrent")
            .arg(QString::fromLocal8Bit(std::strerror(error)), error == EMFILE ? QStringLiteral("its") : QStringLiteral("the system's"));
    }
    return QStringLiteral("the gateway cannot open a connection: %1").arg(QString::fromLocal8Bit(std::strerror(error)));
}

} // namespace detail
} // namespace sy::upstream
