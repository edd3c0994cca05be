#pragma once
// StreamDecoding: the first steps the Anthropic and Gemini StreamDecoders take on an upstream
// stream event — the event's data as a JSON object, the upstream's own error reported in the
// stream — and the blank canonical event they fill in. Pure; any thread.
#include "api/Codec.h"

#include <QJsonObject>
#include <QJsonValue>
#include <optional>

namespace sy::api {

// A canonical stream event of `kind` with nothing else set.
StreamEvent eventOf(StreamEvent::Kind kind);

// `event`'s data as a JSON object; nullopt, with `decoded.malformed` set, when it is not one.
std::optional<QJsonObject> eventObject(const SseEvent &event, DecodedEvents &decoded);

// Marks `decoded` as the upstream's error in the stream, with the `message` of `error` (the
// upstream's error object), or a generic text when it gives none.
void setStreamError(DecodedEvents &decoded, const QJsonValue &error);

} // namespace sy::api
