#include "ChatTypes.h"

namespace sy::sim {

int ChatReply::completionTokens() const
{
    int tokens = int(words.size());
    if (hasToolCall())
        tokens += 1 + int(toolArguments.size() / 4);
    return tokens;
}

QByteArrayView ChatReply::serial() const
{
    const QByteArrayView all(id);
    return all.sliced(all.lastIndexOf('-') + 1);
}

QByteArray ChatReply::text() const
{
    QByteArray out;
    out.reserve(qsizetype(words.size()) * 8);
    for (size_t i = 0; i < words.size(); ++i) {
        if (i > 0)
            out.append(' ');
        out.append(words[i]);
    }
    return out;
}

QByteArray ChatReply::delta(qsizetype index) const
{
    const QByteArrayView word = words.at(size_t(index));
    if (index == 0)
        return word.toByteArray();
    QByteArray out;
    out.reserve(word.size() + 1);
    return out.append(' ').append(word);
}

} // namespace sy::sim
