#include "ProviderPath.h"

namespace sy::sim {

namespace {

bool isApiPath(const QByteArray &path)
{
    return path.startsWith("/v1/") || path.startsWith("/v1beta/");
}

} // namespace

std::optional<ProviderPath> parseProviderPath(const QByteArray &path)
{
    if (isApiPath(path))
        return ProviderPath{kDefaultProvider.toString(), path};
    if (!path.startsWith('/'))
        return std::nullopt;
    const qsizetype slash = path.indexOf('/', 1);
    if (slash < 0)
        return std::nullopt;
    const QByteArray segment = path.mid(1, slash - 1);
    const QByteArray rest = path.mid(slash);
    if (segment.isEmpty() || segment.startsWith('_') || !isApiPath(rest))
        return std::nullopt;
    return ProviderPath{QString::fromUtf8(segment), rest};
}

} // namespace sy::sim
