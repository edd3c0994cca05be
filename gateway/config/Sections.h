#pragma once
// Internal to the loader: the per-section readers (first pass: shape, types, ranges of each
// entry) and the validation of the whole (second pass: ids, cross-references, implicit models).
#include "config/Config.h"
#include "config/NodeReader.h"

#include <vector>

namespace sy::config::detail {

// Where the identifying fields of each entry were written, parallel to the Config's vectors, so
// the second pass can point at the line of a duplicate or an unknown reference.
struct ChannelMarks {
    Where id;
    std::vector<Where> modelIds;       // parallel to Channel::models
};

struct VirtualModelMarks {
    Where id;
    Where primary;
    std::vector<Where> fallbacks;
};

struct KeyMarks {
    Where name;
    Where secret;                      // the secret or secret_sha256 field
    std::vector<Where> allowedModels;
};

struct Marks {
    Where defaultModel;
    std::vector<ChannelMarks> channels;
    std::vector<Where> modelIds;       // parallel to Config::models (declared ones)
    std::vector<VirtualModelMarks> virtualModels;
    std::vector<KeyMarks> keys;
};

// Reads the top-level mapping into `config`. Entries with errors are still appended (with what
// could be read) so that the second pass sees every id; the load fails anyway.
void readDocument(Reader &reader, const YAML::Node &root, Config &config, Marks &marks);

// Reads `channels:` (ChannelReader.cpp).
// Reads every element of the list `list` (at `field`) with `readOne(reader, node, path, item, mark)`,
// appending each item and its marks; a `list` that is not a list is one error.
template <typename Item, typename Mark, typename ReadOne>
void readEach(Reader &reader, const YAML::Node &list, const QString &field, std::vector<Item> &items,
              std::vector<Mark> &marks, ReadOne readOne)
{
    if (!reader.expectList(list, field))
        return;
    std::size_t i = 0;
    for (auto it = list.begin(); it != list.end(); ++it, ++i) {
        Item item;
        Mark mark;
        readOne(reader, *it, indexField(field, i), item, mark);
        items.push_back(std::move(item));
        marks.push_back(std::move(mark));
    }
}

void readChannels(Reader &reader, const YAML::Node &list, const QString &field,
                  std::vector<Channel> &channels, std::vector<ChannelMarks> &marks);

// Reads `keys:` (KeyReader.cpp). Secrets are hashed here and never stored in plain text.
void readKeys(Reader &reader, const YAML::Node &list, const QString &field, std::vector<Key> &keys,
              std::vector<KeyMarks> &marks);

// True when `id` can be used as a model, channel or key identifier: not empty, no whitespace or
// control characters (they end up in headers and logs).
bool isPlainIdentifier(const QString &id);

// Checks a model or virtual model id (an identifier not ending in a reserved `:nitro`/`:floor`
// suffix); records an error at `where` and returns false when it is not one.
bool checkModelId(Reader &reader, const Where &where, const QString &id);

// Second pass (ConfigValidation.cpp): uniqueness, references between sections, implicit models.
// Appends models served by channels but not declared under `models:`.
void validateConfig(Reader &reader, Config &config, const Marks &marks);

} // namespace sy::config::detail
