#pragma once
// The values the configuration accepts for a channel's enumerated fields: the loader checks
// against these lists and the dashboard offers them, so both come from this one place.
#include <QStringList>

namespace sy::config {

// The channel formats the gateway has an upstream dialect for.
inline const QStringList &channelFormats()
{
    static const QStringList values{"openai", "anthropic", "gemini"};
    return values;
}

inline const QStringList &channelTiers()
{
    static const QStringList values{"standard", "priority", "flex"};
    return values;
}

inline const QStringList &dataCollectionValues()
{
    static const QStringList values{"allow", "deny"};
    return values;
}

// A channel's `auth`: how its credential is sent when not its format's way.
inline const QStringList &authStyles()
{
    static const QStringList values{"bearer", "x-api-key", "api-key", "x-goog-api-key", "none"};
    return values;
}

} // namespace sy::config
