#pragma once
// Splits a request path into the simulated provider and the API path it addresses:
// "/cloudru/v1/chat/completions" -> ("cloudru", "/v1/chat/completions"); the bare
// "/v1/models" -> ("default", "/v1/models"); Gemini's version too:
// "/gemini/v1beta/models" -> ("gemini", "/v1beta/models"). Any thread.
#include <QByteArray>
#include <QString>
#include <optional>

namespace sy::sim {

inline constexpr QStringView kDefaultProvider = u"default";

struct ProviderPath {
    QString provider;
    QByteArray endpoint;  // starts with "/v1/" or "/v1beta/"
};

// Empty for paths that address no provider API (no "/v1/" or "/v1beta/" part, an empty or
// reserved segment).
std::optional<ProviderPath> parseProviderPath(const QByteArray &path);

} // namespace sy::sim
