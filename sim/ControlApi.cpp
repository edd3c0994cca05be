#include "ControlApi.h"

#include "OpenAiFormat.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::sim {

using http::HttpRequest;
using http::ResponseSink;
using SinkPtr = std::shared_ptr<ResponseSink>;

namespace {

bool isLoopback(const QHostAddress &peer)
{
    bool mapped = false;
    const quint32 ipv4 = peer.toIPv4Address(&mapped);
    return mapped ? QHostAddress(ipv4).isLoopback() : peer.isLoopback();
}

void respondJson(ResponseSink &sink, int status, const QJsonObject &object)
{
    sink.respond(status, {{"content-type", "application/json"}},
                 QJsonDocument(object).toJson(QJsonDocument::Compact));
}

void respondError(ResponseSink &sink, int status, const QString &message)
{
    sink.respond(status, {{"content-type", "application/json"}}, OpenAiFormat().errorBody(status, message));
}

QJsonObject ruleCount(const SimState &state)
{
    return {{QStringLiteral("rules"), qint64(state.rules.rules().size())}};
}

// Wraps a control handler with the loopback check.
http::Handler loopbackOnly(std::function<void(HttpRequest &, ResponseSink &)> handler)
{
    return [handler = std::move(handler)](HttpRequest &&request, SinkPtr sink) {
        if (!isLoopback(request.peer)) {
            respondError(*sink, 403, QStringLiteral("the simulator control endpoint answers loopback clients only"));
            return;
        }
        handler(request, *sink);
    };
}

} // namespace

QJsonObject stateToScriptJson(const SimState &state)
{
    QJsonArray rules;
    for (const SimRule &rule : state.rules.rules())
        rules.append(ruleToJson(rule));
    QJsonObject providers;
    for (auto it = state.catalog.perProvider.constBegin(); it != state.catalog.perProvider.constEnd(); ++it)
        providers.insert(it.key(), QJsonArray::fromStringList(it.value()));
    return {
        {QStringLiteral("models"), QJsonArray::fromStringList(state.catalog.models)},
        {QStringLiteral("providers"), providers},
        {QStringLiteral("rules"), rules},
    };
}

void installControlRoutes(http::HttpFront &front, SimState &state)
{
    front.route("GET", "/_sim/rules", loopbackOnly([&state](HttpRequest &, ResponseSink &sink) {
        respondJson(sink, 200, stateToScriptJson(state));
    }));
    front.route("PUT", "/_sim/rules", loopbackOnly([&state](HttpRequest &request, ResponseSink &sink) {
        const ScriptParse parsed = parseScript(request.body);
        if (!parsed.script) {
            respondError(sink, 400, parsed.error);
            return;
        }
        state.apply(*parsed.script);
        respondJson(sink, 200, ruleCount(state));
    }));
    front.route("POST", "/_sim/rules", loopbackOnly([&state](HttpRequest &request, ResponseSink &sink) {
        const QJsonDocument document = QJsonDocument::fromJson(request.body);
        if (!document.isObject()) {
            respondError(sink, 400, QStringLiteral("expected one rule as a JSON object"));
            return;
        }
        RuleParse parsed = parseRule(document.object());
        if (!parsed.rule) {
            respondError(sink, 400, parsed.error);
            return;
        }
        state.rules.upsert(std::move(*parsed.rule));
        respondJson(sink, 200, ruleCount(state));
    }));
    front.route("DELETE", "/_sim/rules", loopbackOnly([&state](HttpRequest &, ResponseSink &sink) {
        state.rules.clear();
        respondJson(sink, 200, ruleCount(state));
    }));
    front.route("GET", "/_sim/stats", loopbackOnly([&state](HttpRequest &, ResponseSink &sink) {
        respondJson(sink, 200, state.stats.toJson());
    }));
    front.route("POST", "/_sim/reset", loopbackOnly([&state](HttpRequest &, ResponseSink &sink) {
        state.reset();
        respondJson(sink, 200, ruleCount(state));
    }));
}

} // namespace sy::sim
