#pragma once
// SimScript: the whole configuration of a simulator run, as read from `--script FILE` or sent to
// PUT /_sim/rules:
//   {"models": ["m1", "m2"],                    served by every provider (GET /v1/models)
//    "providers": {"cloudru": ["m1"]},          optional per-provider model lists
//    "rules": [{...SimRule...}, ...]}
// Plain data; any thread.
#include "SimRule.h"

#include <QHash>
#include <QStringList>
#include <vector>

namespace sy::sim {

// Which models each simulated provider lists. Chat requests accept any model regardless.
struct ModelCatalog {
    QStringList models{QStringLiteral("sim-chat")};
    QHash<QString, QStringList> perProvider;

    const QStringList &modelsFor(const QString &provider) const;
};

struct SimScript {
    std::optional<ModelCatalog> catalog;  // absent when the JSON names neither models nor providers
    std::vector<SimRule> rules;
};

struct ScriptParse {
    std::optional<SimScript> script;
    QString error;  // "rules[2].ttft_ms: expected a number"
};

ScriptParse parseScript(const QByteArray &json);

} // namespace sy::sim
