#pragma once
// ProviderNames: provider.order / only / ignore names matched against a channel's provider slug
// and id case-insensitively (Qt's simple case folding, as QString::compare(CaseInsensitive)),
// with the folding done once per name instead of once per comparison. A name that is pure ASCII
// is kept lowered (A–Z → a–z) and two such names match when they are equal; a name with any other
// character keeps Qt's compare, since it may fold onto ASCII (U+212A KELVIN SIGN is "k").
//
// Thread: any; values.
#include "config/Config.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace sy::routing {

struct FoldedName {
    QString text;         // as written
    QString asciiLower;   // `text` lowered, when it is ASCII
    bool ascii = true;

    explicit FoldedName(const QString &name = {});
    // The same answer as text.compare(other.text, Qt::CaseInsensitive) == 0.
    bool matches(const FoldedName &other) const;
};

// A channel's two names, folded once per configuration (RouteTable keeps them).
struct ChannelNames {
    FoldedName provider;
    FoldedName id;

    ChannelNames() = default;
    explicit ChannelNames(const config::Channel &channel) : provider(channel.provider), id(channel.id) {}
    // `name` designates this channel (providerNameMatches' rule).
    bool matches(const FoldedName &name) const { return provider.matches(name) || id.matches(name); }
};

std::vector<FoldedName> foldedNames(const QStringList &names);

// True when any of `names` designates the channel.
bool anyNameMatches(const ChannelNames &channel, const std::vector<FoldedName> &names);

// Position in `order` of the first name designating the channel; INT_MAX when none does.
int orderRank(const ChannelNames &channel, const std::vector<FoldedName> &order);

} // namespace sy::routing
