#include "api/JsonBody.h"

#include <QJsonDocument>

namespace sy::api {

JsonBody::JsonBody(QJsonObject object)
    : m_state(std::make_shared<State>(State{{}, std::move(object)}))
{
}

JsonBody JsonBody::fromRaw(const QByteArray &raw)
{
    JsonBody body;
    body.m_state = std::make_shared<State>(State{raw, std::nullopt});
    return body;
}

const QJsonObject &JsonBody::object() const
{
    static const QJsonObject kEmpty;
    if (!m_state)
        return kEmpty;
    if (!m_state->object)
        m_state->object = QJsonDocument::fromJson(m_state->raw).object();
    return *m_state->object;
}

} // namespace sy::api
