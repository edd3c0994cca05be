#pragma once
// One admin API call: the request, its path split after /admin/, and the ways to answer it.
// Errors use the OpenAI error shape with `param` naming the offending field.
#include "api/openai/OpenAiErrors.h"
#include "http/ResponseSink.h"
#include "service/AdminApi.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace sy::service {

struct AdminApi::Call {
    http::HttpRequest request;
    std::shared_ptr<http::ResponseSink> sink;  // null for an in-process call (AdminApi::invoke)
    QStringList path;                      // "/admin/channels/x" -> ["channels", "x"]
    InProcessAnswer answer;                // set for an in-process call

    const QByteArray &method() const { return request.method; }

    // For a route that answers later (discovery, channel tests: they wait on an upstream): moves
    // the call — its sink or in-process answer — into the returned object, which the route's
    // work answers exactly once, on the gateway thread. This one is left with nothing to answer.
    std::shared_ptr<Call> defer()
    {
        auto later = std::make_shared<Call>(std::move(*this));
        sink = nullptr;
        answer = nullptr;
        return later;
    }

    // The body as a JSON object; on failure answers 400 and returns nullopt.
    std::optional<QJsonObject> bodyObject()
    {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(request.body, &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject()) {
            fail(400, error.error != QJsonParseError::NoError
                          ? QStringLiteral("Body is not valid JSON: %1 at offset %2.").arg(error.errorString()).arg(error.offset)
                          : QStringLiteral("Body must be a JSON object."));
            return std::nullopt;
        }
        return doc.object();
    }

    void reply(int status, const QJsonValue &value)
    {
        const QByteArray body = value.isArray() ? QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact)
                                                : QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
        replyRaw(status, "application/json", body);
    }

    void replyRaw(int status, const QByteArray &contentType, const QByteArray &body)
    {
        if (sink)
            sink->respond(status, {{"Content-Type", contentType}}, body);
        else if (answer)
            std::exchange(answer, nullptr)(status, body);
    }

    void fail(int status, const QString &message, const QString &field = {})
    {
        replyRaw(status, "application/json", api::openai::errorBody(status, message, {}, field));
    }

    void notFound() { fail(404, QStringLiteral("Unknown admin route: %1 %2").arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path))); }
    void methodNotAllowed() { fail(405, QStringLiteral("Method %1 is not allowed on %2.").arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path))); }
};

} // namespace sy::service
