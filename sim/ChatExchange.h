#pragma once
// ChatExchange: plays one ChatPlan on a ResponseSink with the planned timing: `latency` before
// the headers, `timeToFirstToken` before the first content chunk, then chunks paced at
// `tokensPerSecond`, or the planned failure. Every delay is a QTimer; nothing blocks.
//
// Ownership: start() answers at once when the plan needs no timer (the common fast path, no
// allocation). Otherwise it creates an exchange owned by `parent` that deletes itself when the
// response ended, was cut, or the client disconnected (timers stop at once). Deleting `parent`
// ends the remaining exchanges (e.g. hung ones) silently.
// Thread: the thread of the sink (the simulator's).
#include "ChatPlanner.h"
#include "SimStats.h"
#include "WireFormat.h"
#include "http/ResponseSink.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <memory>

namespace sy::sim {

class ChatExchange : public QObject {
    Q_OBJECT
public:
    // `format` and `stats` must outlive every exchange started with them. The exchange counts
    // itself in stats.inFlight() until it ends.
    static void start(ChatPlan plan, const WireFormat &format,
                      std::shared_ptr<http::ResponseSink> sink, SimStats &stats, QObject *parent);
    ~ChatExchange() override;

    // Writes every outcome that needs no timer after the headers (plain answers, status errors,
    // reset, empty_200, malformed_sse, a plain drop_mid_stream or error_mid_stream). False for
    // hang and streams with content, which need an exchange.
    static bool tryAnswerAtOnce(const ChatPlan &plan, const WireFormat &format,
                                http::ResponseSink &sink);

private:
    ChatExchange(ChatPlan plan, const WireFormat &format, std::shared_ptr<http::ResponseSink> sink,
                 SimStats &stats, QObject *parent);

    void after(std::chrono::milliseconds delay, void (ChatExchange::*step)());
    void sendHeaders();
    void startContent();
    void sendDueContent();
    void completeStream();
    void end();

    ChatPlan m_plan;
    const WireFormat &m_format;
    std::shared_ptr<http::ResponseSink> m_sink;
    SimStats &m_stats;
    QTimer m_timer;
    void (ChatExchange::*m_next)() = nullptr;
    QElapsedTimer m_contentClock;
    qsizetype m_chunksSent = 0;
    qsizetype m_chunkLimit = 0;
    bool m_ended = false;
};

} // namespace sy::sim
