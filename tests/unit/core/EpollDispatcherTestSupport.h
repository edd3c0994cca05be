#pragma once
// The fixture of the event dispatcher tests: the main thread's dispatcher (installed by
// EpollTestMain.cpp) and loopback descriptor helpers. Thread: the test's (main) thread.
#include "core/EpollEventDispatcher.h"
#include "support/Waits.h"

#include <QAbstractEventDispatcher>
#include <QCoreApplication>
#include <gtest/gtest.h>

namespace sy::test {

using namespace std::chrono_literals;

class EpollDispatcherTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_NE(dispatcher(), nullptr) << "the test main must install sy::EpollEventDispatcher";
        QCoreApplication::processEvents();  // nothing left over from the previous test
    }

    static EpollEventDispatcher *dispatcher()
    {
        return qobject_cast<EpollEventDispatcher *>(QAbstractEventDispatcher::instance());
    }
};

// A connected TCP pair on 127.0.0.1 from plain sockets (no Qt notifiers of their own), both
// non-blocking; closed by the destructor.
struct TcpPair {
    TcpPair();
    ~TcpPair();
    TcpPair(const TcpPair &) = delete;
    TcpPair &operator=(const TcpPair &) = delete;
    int client = -1;
    int server = -1;
};

// A pipe, both ends non-blocking; closed by the destructor (an end set to -1 is not).
struct Pipe {
    Pipe();
    ~Pipe();
    Pipe(const Pipe &) = delete;
    Pipe &operator=(const Pipe &) = delete;
    int readEnd = -1;
    int writeEnd = -1;
};

// One byte into `fd`; all that is readable out of it.
void writeByte(int fd);
void drain(int fd);

} // namespace sy::test
