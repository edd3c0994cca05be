#pragma once
// KeyLimiter: the per-key limits of SPEC §8, decided for one request at admission:
//  - requests per minute of a gateway key (sliding 60 s window, exact timestamps);
//  - requests per minute of the request's PRIMARY model for that key (its own 60 s window per key
//    and model; fallback models a request ends up on never count);
//  - max concurrent requests of the key (slots held by RAII permits).
// Each limit is off when 0 (or below). Admission either counts the request in both windows and
// hands out a Permit that holds one concurrency slot, or refuses with a reason and a retry-after
// and consumes nothing. Waiting up to 2 s for room and answering 429 is the caller's business;
// onRelease tells it when a slot frees so waiters can try again.
//
// Memory: a window keeps at most as many timestamps as its limit (only the newest `rpm` admissions
// decide the next one); a window whose limit is off keeps nothing, so requestsInLastMinute counts
// only admissions made while the key had an RPM limit. A key's state is dropped once it has no
// slot in use and nothing in its window; a (key, model) window is pruned when that pair is next
// requested, so memory is bounded by the pairs seen times their limits.
//
// Thread: one thread (the gateway thread), including permit release. Time from the injected Clock.
// Ownership: the limiter must outlive every Permit it handed out.
#include "core/Clock.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>

#include <chrono>
#include <functional>
#include <variant>

namespace sy::limits {

struct KeyLimits {
    int requestsPerMinute = 0;  // 0 = off
    int maxConcurrent = 0;      // 0 = off
};

// Whoever hands out key permits (this limiter, or one shared through Redis) and takes their slots
// back. `slot` is the owner's own id of the slot (0 when it keeps none).
class PermitOwner {
public:
    virtual void releasePermit(const QString &keyName, quint64 slot) = 0;

protected:
    ~PermitOwner() = default;
};

// Why a request was not admitted, and after how long trying again may succeed.
struct Refusal {
    std::chrono::milliseconds retryAfter{0};
    QByteArray reason;  // "key_rpm" | "model_rpm" | "key_concurrency" (stable metric names)
};

class KeyLimiter : public PermitOwner {
public:
    static constexpr std::chrono::seconds kWindow{60};
    // A freed slot cannot be predicted, so a concurrency refusal suggests this short retry-after.
    static constexpr std::chrono::milliseconds kConcurrencyRetryAfter{1000};

    // One concurrency slot of one key, released on destruction, on release(), or when a permit is
    // moved over it. Move-only; a default-constructed or moved-from permit holds nothing.
    class Permit {
    public:
        Permit() = default;
        Permit(Permit &&other) noexcept;
        Permit &operator=(Permit &&other) noexcept;
        Permit(const Permit &) = delete;
        Permit &operator=(const Permit &) = delete;
        ~Permit();

        // Frees the slot now (and calls the limiter's onRelease); a no-op when nothing is held.
        void release();
        bool isHeld() const { return m_limiter != nullptr; }
        explicit operator bool() const { return isHeld(); }
        // The key whose slot is held; empty when nothing is held.
        const QString &keyName() const { return m_keyName; }

        // For limiter implementations: a permit whose release calls owner->releasePermit(keyName,
        // slot) once. `owner` must outlive the permit.
        Permit(PermitOwner *owner, QString keyName, quint64 slot = 0);

    private:
        PermitOwner *m_limiter = nullptr;
        QString m_keyName;
        quint64 m_slot = 0;
    };

    // `clock` must outlive the limiter.
    explicit KeyLimiter(const Clock &clock);
    KeyLimiter(const KeyLimiter &) = delete;
    KeyLimiter &operator=(const KeyLimiter &) = delete;

    // Admits a request of `keyName` now, or says why not. Limits are passed on every call, so a
    // changed key configuration applies to the next request (a lowered RPM refuses until enough
    // of the window has left). On admission the request is counted in the key's window and in the
    // (key, primaryModel) window and takes a slot. When several limits refuse, the refusal with
    // the longest retry-after is returned (ties: key_rpm, model_rpm, key_concurrency), since the
    // request cannot succeed before all of them allow it. RPM retry-after: until the admission
    // that blocks leaves the 60 s window (an admission at t counts while now < t + 60 s), rounded
    // up to whole milliseconds; concurrency: kConcurrencyRetryAfter.
    std::variant<Permit, Refusal> tryAcquire(const QString &keyName, const KeyLimits &limits,
                                             const QString &primaryModel, int modelRequestsPerMinute);

    // Slots of the key held by live permits (counted whether or not a concurrency limit is set).
    int inFlight(const QString &keyName) const;
    // Admissions of the key in the last 60 s that are still recorded (see Memory above).
    int requestsInLastMinute(const QString &keyName) const;
    // Admissions of the key for `primaryModel` in the last 60 s (recorded while a model RPM was set).
    int modelRequestsInLastMinute(const QString &keyName, const QString &primaryModel) const;

    // Called synchronously from Permit release after the slot is free, so the callback may call
    // tryAcquire to admit a waiter. Replaces any earlier callback; an empty function clears it.
    void setOnRelease(std::function<void(const QString &keyName)> callback);

private:
    // Oldest first. A QList: dropping the oldest only moves its start, and an empty one holds no
    // allocation (a key without limits gets a fresh state per request when dropIfIdle removes it).
    using Window = QList<Clock::TimePoint>;
    struct KeyState {
        Window admitted;  // newest at the back, at most requestsPerMinute entries
        int inFlight = 0;
    };

    // Drops admissions that have left the window at `now`.
    static void prune(Window &window, Clock::TimePoint now);
    // Refusal delay for a window with limit `rpm` (already pruned); zero when there is room.
    static std::chrono::milliseconds rpmDelay(const Window &window, int rpm, Clock::TimePoint now);
    // Records an admission and keeps only the newest `rpm` entries (nothing when rpm is off).
    static void record(Window &window, int rpm, Clock::TimePoint now);
    static int countRecent(const Window &window, Clock::TimePoint now);
    static QString modelKey(const QString &keyName, const QString &primaryModel);

    void releasePermit(const QString &keyName, quint64 slot) override;
    void releaseSlot(const QString &keyName);
    void dropIfIdle(const QString &keyName);

    const Clock &m_clock;
    QHash<QString, KeyState> m_keys;
    QHash<QString, Window> m_modelWindows;  // by modelKey(key, primary model)
    std::function<void(const QString &)> m_onRelease;
};

} // namespace sy::limits
