// ConnectionGate's accounting, driven by hand: which transfers go to curl at once, which wait for
// a connection being opened, and when they are let go. (The same against a real HTTP/2 server
// through the gateway: tests/integration/ChannelHttp2Test.cpp.)
#include "upstream/ConnectionGate.h"
#include "upstream/CurlTransfer.h"
#include "upstream/TransferDeadlines.h"

#include <QObject>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace sy::upstream::detail {
namespace {

constexpr long kStreams = 4;  // per connection

class ConnectionGateTest : public ::testing::Test {
protected:
    CurlTransfer *transfer()
    {
        transfers.push_back(std::make_unique<CurlTransfer>(&deadlines, &gate));
        return transfers.back().get();
    }
    static UpstreamRequest to(const char *url)
    {
        UpstreamRequest request;
        request.url = url;
        return request;
    }
    // A transfer to the HTTPS origin that went out on `socket` and was answered over HTTP/2.
    CurlTransfer *answeredOverHttp2(curl_socket_t socket)
    {
        CurlTransfer *t = transfer();
        EXPECT_TRUE(gate.admit(t, to(kOrigin)));
        gate.requestSent(t, socket);
        gate.responseVersion(t, true);
        return t;
    }
    // Admits `count` new transfers; returns those that went to curl at once.
    std::vector<CurlTransfer *> burst(int count, std::vector<CurlTransfer *> *held = nullptr)
    {
        std::vector<CurlTransfer *> now;
        for (int i = 0; i < count; ++i) {
            CurlTransfer *t = transfer();
            if (gate.admit(t, to(kOrigin)))
                now.push_back(t);
            else if (held)
                held->push_back(t);
        }
        return now;
    }

    static constexpr const char *kOrigin = "https://api.example.test/v1/chat/completions";
    QObject context;
    TransferDeadlines deadlines{&context, [] {}};
    ConnectionGate gate{kStreams};
    std::vector<std::unique_ptr<CurlTransfer>> transfers;
};

TEST_F(ConnectionGateTest, PlainHttpIsNeverHeld)
{
    for (int i = 0; i < 20; ++i)
        EXPECT_TRUE(gate.admit(transfer(), to("http://127.0.0.1:8080/v1/chat/completions")));
    EXPECT_EQ(gate.heldCount(), 0);
}

// Before its first answer an https:// origin is taken to multiplex: a burst waits for the first
// handshake (as curl's CURLOPT_PIPEWAIT would) and for one per `kStreams` after it.
TEST_F(ConnectionGateTest, AFirstBurstWaitsForTheConnectionsItNeeds)
{
    std::vector<CurlTransfer *> held;
    const std::vector<CurlTransfer *> now = burst(8, &held);
    ASSERT_EQ(now.size(), 2u);  // 2 openers for 8 transfers of 4 streams a connection
    EXPECT_EQ(held.size(), 6u);
    gate.requestSent(now[0], 10);
    EXPECT_EQ(gate.takeReleased(), std::vector<CurlTransfer *>(held.begin(), held.begin() + 3));
}

// An answer over HTTP/1.1: one connection per request, nobody waits for another's.
TEST_F(ConnectionGateTest, AnOriginThatAnswersOverHttp1HoldsNobody)
{
    CurlTransfer *first = transfer();
    ASSERT_TRUE(gate.admit(first, to(kOrigin)));
    gate.requestSent(first, 10);
    gate.responseVersion(first, false);
    for (int i = 0; i < 20; ++i)
        EXPECT_TRUE(gate.admit(transfer(), to(kOrigin)));
    EXPECT_EQ(gate.heldCount(), 0);
}

TEST_F(ConnectionGateTest, ABurstTakesTheFreeSlotsThenOpensOneConnectionPerStreamsWorth)
{
    answeredOverHttp2(10);  // one connection, 3 slots free
    std::vector<CurlTransfer *> held;
    const std::vector<CurlTransfer *> now = burst(13, &held);
    // 3 into the free slots, then 10 more: 3 openers (each opening a connection of 4), 7 waiting.
    ASSERT_EQ(now.size(), 6u);
    EXPECT_EQ(held.size(), 7u);
    EXPECT_EQ(now[3]->gate.state, GateSlot::State::Opener);
    EXPECT_EQ(now[4]->gate.state, GateSlot::State::Opener);
    EXPECT_EQ(now[5]->gate.state, GateSlot::State::Opener);
    EXPECT_TRUE(gate.takeReleased().empty());

    // The slot-takers go out on the open connection: no room appears, nobody is let go.
    for (int i = 0; i < 3; ++i)
        gate.requestSent(now[i], 10);
    EXPECT_TRUE(gate.takeReleased().empty());
    // An opener's connection is up: 3 waiting ones take its other slots, in arrival order.
    gate.requestSent(now[3], 11);
    EXPECT_EQ(gate.takeReleased(), std::vector<CurlTransfer *>(held.begin(), held.begin() + 3));
    for (int i = 0; i < 3; ++i)
        gate.requestSent(held[i], 11);
    gate.requestSent(now[4], 12);
    EXPECT_EQ(gate.takeReleased(), std::vector<CurlTransfer *>(held.begin() + 3, held.begin() + 6));
    EXPECT_EQ(gate.heldCount(), 1);
}

TEST_F(ConnectionGateTest, AFinishedStreamFreesItsSlotForTheNextWaitingOne)
{
    CurlTransfer *first = answeredOverHttp2(10);
    std::vector<CurlTransfer *> held;
    const std::vector<CurlTransfer *> now = burst(5, &held);  // 3 into the slots, 1 opener, 1 waits
    ASSERT_EQ(now.size(), 4u);
    ASSERT_EQ(held.size(), 1u);
    for (int i = 0; i < 3; ++i)
        gate.requestSent(now[i], 10);
    gate.leave(first);
    EXPECT_EQ(gate.takeReleased(), held);
    EXPECT_EQ(held[0]->gate.state, GateSlot::State::Added);
}

TEST_F(ConnectionGateTest, AWaitingTransferThatLeavesIsNeverLetGo)
{
    answeredOverHttp2(10);
    std::vector<CurlTransfer *> held;
    const std::vector<CurlTransfer *> now = burst(6, &held);  // 3 into the slots, 1 opener, 2 wait
    ASSERT_EQ(held.size(), 2u);
    gate.leave(held[0]);  // cancelled while waiting
    EXPECT_EQ(held[0]->gate.state, GateSlot::State::None);
    gate.requestSent(now[3], 11);
    EXPECT_EQ(gate.takeReleased(), std::vector<CurlTransfer *>{held[1]});
}

TEST_F(ConnectionGateTest, AnOpenerThatCannotConnectLetsEveryoneGoAtOnce)
{
    answeredOverHttp2(10);
    std::vector<CurlTransfer *> held;
    const std::vector<CurlTransfer *> now = burst(9, &held);  // 3 slots, 2 openers, 4 waiting
    ASSERT_EQ(held.size(), 4u);
    // Not one connect timeout after another: nobody waits for a connection to the origin until
    // it answers over HTTP/2 again.
    gate.connectFailed(now[3]);
    gate.leave(now[3]);
    EXPECT_EQ(gate.takeReleased(), held);
    EXPECT_EQ(gate.heldCount(), 0);
    for (int i = 0; i < 8; ++i)
        EXPECT_TRUE(gate.admit(transfer(), to(kOrigin)));
}

TEST_F(ConnectionGateTest, AnAnswerOverHttp1LetsEveryoneGo)
{
    answeredOverHttp2(10);
    std::vector<CurlTransfer *> held;
    const std::vector<CurlTransfer *> now = burst(9, &held);
    ASSERT_EQ(held.size(), 4u);
    gate.requestSent(now[0], 10);
    gate.responseVersion(now[0], false);
    EXPECT_EQ(gate.takeReleased(), held);
}

TEST_F(ConnectionGateTest, OriginsAreCountedApart)
{
    answeredOverHttp2(10);
    burst(3);  // the origin's free slots
    // Another port, another CA file: other connections, not held behind this origin's (each
    // waits for its own first connection only).
    UpstreamRequest otherPort = to("https://api.example.test:8443/v1/chat/completions");
    UpstreamRequest otherCa = to(kOrigin);
    otherCa.caFile = "/etc/other-ca.pem";
    EXPECT_TRUE(gate.admit(transfer(), otherPort));
    EXPECT_TRUE(gate.admit(transfer(), otherCa));
    EXPECT_EQ(gate.heldCount(), 0);
}

} // namespace
} // namespace sy::upstream::detail
