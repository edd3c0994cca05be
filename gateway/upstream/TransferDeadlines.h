#pragma once
// TransferDeadlines: the first-byte and idle deadlines of all transfers of one client on a single
// precise single-shot QTimer. Internal to the upstream layer.
//
// Transfers keep their own deadline (steady milliseconds) and move it later freely — every
// received piece does — without touching the timer. Only a deadline earlier than the armed one
// re-arms it; when it fires, the owner scans its transfers, times out the expired ones and arms
// the earliest remaining deadline. So an idle client runs no timer, and a streaming transfer costs
// one store per received piece.
//
// Thread: the owning client's thread only.
#include <QObject>
#include <QTimer>
#include <functional>

namespace sy::upstream::detail {

class TransferDeadlines {
public:
    // `onDue` runs from the event loop when the armed time is reached. `context` owns the timer.
    TransferDeadlines(QObject *context, std::function<void()> onDue);

    // Steady milliseconds as of the last refresh(); callbacks inside one curl run share it.
    qint64 nowMs() const { return nowMs_; }
    qint64 refresh();

    // Makes sure onDue runs no later than `atMs` (steady milliseconds).
    void arm(qint64 atMs);

private:
    QTimer timer_;
    qint64 armedAtMs_ = 0;
    qint64 nowMs_ = 0;
};

} // namespace sy::upstream::detail
