#pragma once
// JsonBody: a request body as a QJsonObject, parsed from its bytes on first use. The same-format
// Chat Completions path reads what routing, money and stickiness need from the bytes
// (service/BodyFacts) and forwards them rewritten in place (api/JsonMembers), so most requests
// never build the QJsonObject; translations, codecs and content logging build it when they look.
//
// Copies share the parse: ChatRequest and every ClientRequest made from it parse at most once.
// Thread: one thread at a time (the gateway thread), like the requests that hold it.
#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <memory>
#include <optional>

namespace sy::api {

class JsonBody {
public:
    JsonBody() = default;
    // An object already parsed (or built).
    JsonBody(QJsonObject object);   // NOLINT(google-explicit-constructor): a body is an object
    // `raw` is parsed when the object is first asked for; bytes that are not a JSON object give
    // an empty object (the callers that hold such bytes have refused the request already).
    static JsonBody fromRaw(const QByteArray &raw);

    const QJsonObject &object() const;
    operator const QJsonObject &() const { return object(); }   // NOLINT(google-explicit-constructor)
    // True once the object exists (tests: the same-format path must not need it).
    bool isParsed() const { return !m_state || m_state->object.has_value(); }

    template <typename Key>
    QJsonValue value(const Key &key) const
    {
        return object().value(key);
    }
    QJsonObject::const_iterator constBegin() const { return object().constBegin(); }
    QJsonObject::const_iterator constEnd() const { return object().constEnd(); }

private:
    struct State {
        QByteArray raw;
        std::optional<QJsonObject> object;
    };
    std::shared_ptr<State> m_state;   // null: the empty object
};

} // namespace sy::api
