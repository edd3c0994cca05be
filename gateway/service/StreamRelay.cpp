#include "service/StreamRelay.h"

namespace sy::service {

void StreamRelay::relay(QByteArray bytes)
{
    if (bytes.isEmpty())
        return;
    if (m_committed)
        m_sink->write(bytes);
    else
        m_held.push_back(std::move(bytes));
}

void StreamRelay::commit(const http::HeaderList &headers)
{
    if (m_committed)
        return;
    m_committed = true;
    // One piece: the head and what was held leave in one write.
    QByteArray held;
    for (const QByteArray &bytes : m_held)
        held += bytes;
    m_held.clear();
    m_sink->begin(200, headers, held);
}

void StreamRelay::end(const QByteArray &tail)
{
    m_sink->write(tail);
    m_sink->finish();
}

void StreamRelay::interrupt(const QByteArray &signal)
{
    m_sink->write(signal);
    m_sink->finish();
}

} // namespace sy::service
