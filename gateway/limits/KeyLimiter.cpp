#include "limits/KeyLimiter.h"

#include <utility>

namespace sy::limits {

using std::chrono::milliseconds;

// --- Permit ---------------------------------------------------------------------------------------

KeyLimiter::Permit::Permit(PermitOwner *owner, QString keyName, quint64 slot)
    : m_limiter(owner)
    , m_keyName(std::move(keyName))
    , m_slot(slot)
{
}

KeyLimiter::Permit::Permit(Permit &&other) noexcept
    : m_limiter(std::exchange(other.m_limiter, nullptr))
    , m_keyName(std::exchange(other.m_keyName, QString()))
    , m_slot(std::exchange(other.m_slot, 0))
{
}

KeyLimiter::Permit &KeyLimiter::Permit::operator=(Permit &&other) noexcept
{
    if (this != &other) {
        release();
        m_limiter = std::exchange(other.m_limiter, nullptr);
        m_keyName = std::exchange(other.m_keyName, QString());
        m_slot = std::exchange(other.m_slot, 0);
    }
    return *this;
}

KeyLimiter::Permit::~Permit()
{
    release();
}

void KeyLimiter::Permit::release()
{
    PermitOwner *owner = std::exchange(m_limiter, nullptr);
    if (!owner)
        return;
    // Empty this permit before the callback runs, so a callback that inspects or moves permits
    // never sees this one as still holding the slot.
    const QString keyName = std::exchange(m_keyName, QString());
    owner->releasePermit(keyName, std::exchange(m_slot, 0));
}

// --- KeyLimiter -----------------------------------------------------------------------------------

KeyLimiter::KeyLimiter(const Clock &clock)
    : m_clock(clock)
{
}

void KeyLimiter::prune(Window &window, Clock::TimePoint now)
{
    while (!window.empty() && window.front() + kWindow <= now)
        window.pop_front();
}

milliseconds KeyLimiter::rpmDelay(const Window &window, int rpm, Clock::TimePoint now)
{
    if (rpm <= 0 || window.size() < qsizetype(rpm))
        return milliseconds(0);
    // Room appears when the window holds rpm - 1 admissions, i.e. when the rpm-th newest leaves.
    const Clock::TimePoint blocking = window[window.size() - qsizetype(rpm)];
    return std::chrono::ceil<milliseconds>(blocking + kWindow - now);
}

void KeyLimiter::record(Window &window, int rpm, Clock::TimePoint now)
{
    if (rpm <= 0) {
        window.clear();
        return;
    }
    window.push_back(now);
    while (window.size() > qsizetype(rpm))
        window.pop_front();
}

int KeyLimiter::countRecent(const Window &window, Clock::TimePoint now)
{
    int count = 0;
    for (auto it = window.rbegin(); it != window.rend() && *it + kWindow > now; ++it)
        ++count;
    return count;
}

QString KeyLimiter::modelKey(const QString &keyName, const QString &primaryModel)
{
    // A key name and a model id never contain a newline, so this cannot collide.
    return keyName + QLatin1Char('\n') + primaryModel;
}

std::variant<KeyLimiter::Permit, Refusal> KeyLimiter::tryAcquire(const QString &keyName, const KeyLimits &limits,
                                                                 const QString &primaryModel,
                                                                 int modelRequestsPerMinute)
{
    const Clock::TimePoint now = m_clock.now();
    KeyState &key = m_keys[keyName];
    prune(key.admitted, now);

    // The window's key is built only when there is a window to find (a concatenation per request).
    QString windowKey;
    Window *modelWindow = nullptr;
    if (modelRequestsPerMinute > 0) {
        windowKey = modelKey(keyName, primaryModel);
        modelWindow = &m_modelWindows[windowKey];
        prune(*modelWindow, now);
    } else if (!m_modelWindows.isEmpty()) {
        m_modelWindows.remove(modelKey(keyName, primaryModel));  // the limit is off: keep nothing
    }

    // Decide on everything before touching anything, so a refusal consumes nothing.
    Refusal refusal;
    auto consider = [&refusal](milliseconds delay, const char *reason) {
        if (delay > refusal.retryAfter) {
            refusal.retryAfter = delay;
            refusal.reason = reason;
        }
    };
    consider(rpmDelay(key.admitted, limits.requestsPerMinute, now), "key_rpm");
    if (modelWindow)
        consider(rpmDelay(*modelWindow, modelRequestsPerMinute, now), "model_rpm");
    if (limits.maxConcurrent > 0 && key.inFlight >= limits.maxConcurrent)
        consider(kConcurrencyRetryAfter, "key_concurrency");

    if (!refusal.reason.isEmpty()) {
        if (modelWindow && modelWindow->empty())
            m_modelWindows.remove(windowKey);
        dropIfIdle(keyName);
        return refusal;
    }

    record(key.admitted, limits.requestsPerMinute, now);
    if (modelWindow)
        record(*modelWindow, modelRequestsPerMinute, now);
    ++key.inFlight;
    return Permit(this, keyName);
}

int KeyLimiter::inFlight(const QString &keyName) const
{
    const auto it = m_keys.constFind(keyName);
    return it == m_keys.cend() ? 0 : it->inFlight;
}

int KeyLimiter::requestsInLastMinute(const QString &keyName) const
{
    const auto it = m_keys.constFind(keyName);
    return it == m_keys.cend() ? 0 : countRecent(it->admitted, m_clock.now());
}

int KeyLimiter::modelRequestsInLastMinute(const QString &keyName, const QString &primaryModel) const
{
    const auto it = m_modelWindows.constFind(modelKey(keyName, primaryModel));
    return it == m_modelWindows.cend() ? 0 : countRecent(*it, m_clock.now());
}

void KeyLimiter::setOnRelease(std::function<void(const QString &keyName)> callback)
{
    m_onRelease = std::move(callback);
}

void KeyLimiter::releasePermit(const QString &keyName, quint64)
{
    releaseSlot(keyName);
}

void KeyLimiter::releaseSlot(const QString &keyName)
{
    const auto it = m_keys.find(keyName);
    if (it != m_keys.end() && it->inFlight > 0)
        --it->inFlight;
    dropIfIdle(keyName);
    // A copy, so a callback that replaces the callback does not destroy the function it runs in.
    if (const auto callback = m_onRelease)
        callback(keyName);
}

void KeyLimiter::dropIfIdle(const QString &keyName)
{
    const auto it = m_keys.find(keyName);
    if (it == m_keys.end())
        return;
    prune(it->admitted, m_clock.now());
    if (it->inFlight == 0 && it->admitted.empty())
        m_keys.erase(it);
}

} // namespace sy::limits
