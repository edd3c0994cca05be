#include "routing/ProviderNames.h"

#include <algorithm>
#include <climits>

namespace sy::routing {

FoldedName::FoldedName(const QString &name)
    : text(name)
{
    ascii = std::all_of(name.cbegin(), name.cend(), [](QChar c) { return c.unicode() < 0x80; });
    if (!ascii)
        return;
    asciiLower = name;
    for (QChar &c : asciiLower) {
        if (c >= u'A' && c <= u'Z')
            c = QChar(c.unicode() + (u'a' - u'A'));
    }
}

bool FoldedName::matches(const FoldedName &other) const
{
    // For ASCII text Qt's case folding is exactly A–Z → a–z.
    if (ascii && other.ascii)
        return asciiLower == other.asciiLower;
    return text.compare(other.text, Qt::CaseInsensitive) == 0;
}

std::vector<FoldedName> foldedNames(const QStringList &names)
{
    std::vector<FoldedName> folded;
    folded.reserve(size_t(names.size()));
    for (const QString &name : names)
        folded.emplace_back(name);
    return folded;
}

bool anyNameMatches(const ChannelNames &channel, const std::vector<FoldedName> &names)
{
    return std::any_of(names.begin(), names.end(), [&](const FoldedName &name) { return channel.matches(name); });
}

int orderRank(const ChannelNames &channel, const std::vector<FoldedName> &order)
{
    for (size_t i = 0; i < order.size(); ++i) {
        if (channel.matches(order[i]))
            return int(i);
    }
    return INT_MAX;
}

} // namespace sy::routing
