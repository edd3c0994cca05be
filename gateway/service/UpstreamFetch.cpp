#include "service/UpstreamFetch.h"

#include <utility>

namespace sy::service {

UpstreamFetch *UpstreamFetch::start(upstream::UpstreamClient &client, upstream::UpstreamRequest request,
                                    Done done, QObject *parent)
{
    auto *fetch = new UpstreamFetch(client, std::move(done), parent);
    fetch->m_elapsed.start();
    fetch->m_transfer = client.send(std::move(request), fetch);
    fetch->m_active = true;
    return fetch;
}

UpstreamFetch::UpstreamFetch(upstream::UpstreamClient &client, Done done, QObject *parent)
    : QObject(parent), m_client(client), m_done(std::move(done))
{
}

UpstreamFetch::~UpstreamFetch()
{
    if (m_active)
        m_client.cancel(m_transfer);
}

void UpstreamFetch::onHeaders(int status, const http::HeaderList &headers)
{
    m_result.status = status;
    m_result.contentType = http::headerValue(headers, "content-type");
}

void UpstreamFetch::onChunk(const QByteArray &bytes)
{
    const qsizetype room = kMaxBodyBytes - m_result.body.size();
    if (room > 0)
        m_result.body += bytes.left(room);
}

void UpstreamFetch::onComplete()
{
    finish();
}

void UpstreamFetch::onError(const upstream::UpstreamError &error)
{
    m_result.error = error;
    finish();
}

void UpstreamFetch::finish()
{
    m_active = false;
    m_result.latencyMs = m_elapsed.elapsed();
    if (Done done = std::exchange(m_done, nullptr))
        done(m_result);
    deleteLater();
}

} // namespace sy::service
