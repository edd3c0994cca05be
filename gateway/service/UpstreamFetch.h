#pragma once
// UpstreamFetch: one small upstream request whose whole answer is wanted at once — a model list,
// a channel test's one-token chat — sent through the gateway's upstream client so it takes the
// real path (TLS, proxy, timeouts) without blocking the gateway thread. The answer's body is
// kept up to kMaxBodyBytes; the rest is dropped.
//
// Thread: the gateway thread (the upstream client's). Ownership: the object deletes itself after
// calling `done` (later, from the event loop); destroying it earlier (its parent going away)
// cancels the transfer and never calls `done`.
#include "upstream/UpstreamClient.h"

#include <QElapsedTimer>
#include <QObject>
#include <functional>
#include <optional>

namespace sy::service {

struct FetchResult {
    int status = 0;                               // 0 when no response came
    QByteArray contentType;
    QByteArray body;
    std::optional<upstream::UpstreamError> error; // transport failure (no status then)
    qint64 latencyMs = 0;                         // send to last byte
};

class UpstreamFetch final : public QObject, private upstream::StreamHandler {
public:
    static constexpr qsizetype kMaxBodyBytes = 4 * 1024 * 1024;
    using Done = std::function<void(const FetchResult &)>;

    // Sends `request` at once; `done` runs exactly once unless the fetch is destroyed first.
    static UpstreamFetch *start(upstream::UpstreamClient &client, upstream::UpstreamRequest request,
                                Done done, QObject *parent);
    ~UpstreamFetch() override;

private:
    UpstreamFetch(upstream::UpstreamClient &client, Done done, QObject *parent);
    void onHeaders(int status, const http::HeaderList &headers) override;
    void onChunk(const QByteArray &bytes) override;
    void onComplete() override;
    void onError(const upstream::UpstreamError &error) override;
    void finish();

    upstream::UpstreamClient &m_client;
    Done m_done;
    FetchResult m_result;
    QElapsedTimer m_elapsed;
    upstream::TransferId m_transfer = 0;
    bool m_active = false;
};

} // namespace sy::service
