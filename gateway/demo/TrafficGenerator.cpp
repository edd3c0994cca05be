#include "demo/TrafficGenerator.h"

#include "upstream/CurlUpstreamClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace sy::demo {

namespace {

// Bounded: a gateway that stops answering must not make the generator pile up requests.
constexpr int kMaxInFlight = 64;

const char *const kPrompts[] = {
    "Summarise the plot of Hamlet in two sentences.",
    "Write a haiku about failover.",
    "Explain what a load balancer does to a new engineer.",
    "List three ways to make a build faster.",
    "What is the capital of Mongolia?",
    "Refactor this: for i in range(len(xs)): print(xs[i])",
};

} // namespace

class TrafficGenerator::Call : public upstream::StreamHandler {
public:
    explicit Call(TrafficGenerator &owner) : m_owner(owner) {}
    upstream::TransferId id = 0;

    void onHeaders(int status, const http::HeaderList &) override { m_status = status; }
    void onChunk(const QByteArray &) override {}
    void onComplete() override { m_owner.finished(this, m_status == 200); }
    void onError(const upstream::UpstreamError &) override { m_owner.finished(this, false); }

private:
    TrafficGenerator &m_owner;
    int m_status = 0;
};

TrafficGenerator::TrafficGenerator(QString gatewayUrl, QByteArray apiKey, QObject *parent)
    : QObject(parent)
    , m_url(std::move(gatewayUrl))
    , m_key(std::move(apiKey))
    , m_upstream(std::make_unique<upstream::CurlUpstreamClient>())
{
    connect(&m_timer, &QTimer::timeout, this, &TrafficGenerator::fire);
    m_timer.setTimerType(Qt::PreciseTimer);
}

TrafficGenerator::~TrafficGenerator()
{
    m_timer.stop();
    for (const auto &call : m_calls)
        m_upstream->cancel(call->id);
}

void TrafficGenerator::configure(double requestsPerSecond, double streamShare, QStringList models)
{
    m_rate = std::clamp(requestsPerSecond, 0.1, 50.0);
    m_streamShare = std::clamp(streamShare, 0.0, 1.0);
    m_models = std::move(models);
    if (m_timer.isActive())
        m_timer.start(int(1000.0 / m_rate));
}

void TrafficGenerator::start()
{
    m_timer.start(int(1000.0 / m_rate));
}

void TrafficGenerator::stop()
{
    m_timer.stop();
}

void TrafficGenerator::fire()
{
    if (m_models.isEmpty() || int(m_calls.size()) >= kMaxInFlight)
        return;
    const QString model = m_models.at(int(m_random.bounded(m_models.size())));
    const bool stream = m_random.generateDouble() < m_streamShare;
    const char *prompt = kPrompts[m_random.bounded(int(std::size(kPrompts)))];
    QJsonObject body{{"model", model},
                     {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", QString::fromLatin1(prompt)}}}},
                     {"stream", stream}};
    upstream::UpstreamRequest request;
    request.url = (m_url + QStringLiteral("/v1/chat/completions")).toUtf8();
    request.headers = {{"content-type", "application/json"}, {"authorization", "Bearer " + m_key}};
    request.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    request.firstByteTimeout = std::chrono::seconds(60);
    auto call = std::make_unique<Call>(*this);
    call->id = m_upstream->send(std::move(request), call.get());
    m_calls.push_back(std::move(call));
    ++m_sent;
}

void TrafficGenerator::finished(Call *call, bool ok)
{
    ++(ok ? m_succeeded : m_failed);
    // Deleted later: this runs inside the call's own callback.
    const auto it = std::find_if(m_calls.begin(), m_calls.end(), [call](const auto &c) { return c.get() == call; });
    if (it == m_calls.end())
        return;
    std::shared_ptr<Call> doomed(it->release());
    m_calls.erase(it);
    QMetaObject::invokeMethod(this, [doomed] {}, Qt::QueuedConnection);
}

} // namespace sy::demo
