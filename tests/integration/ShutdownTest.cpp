// Stopping the gateway while requests run (the desktop app does this on quit or restart): the
// client's connection closes, the upstream request ends, and nothing touches freed memory.
// Runs in a death-test child so that a crash there fails this test alone.
#include "GatewayFixture.h"

#include <cstdlib>

namespace sy::integration {
namespace {

using namespace std::chrono_literals;

class ShutdownTest : public GatewayFixture {
protected:
    // Exit codes of the child: 0 clean, 2..4 a step that did not happen.
    void destroyGatewayWithRequestInFlight(const QByteArray &body)
    {
        startGateway();
        addRule(R"({"provider":"alpha","failure":"hang"})");
        auto client = send("POST", "/v1/chat/completions", body);
        if (!test::waitUntil([this] { return sim->stats().inFlight() == 1; }, 3s))
            std::_Exit(2);
        gateway.reset();
        if (!test::waitUntil([&client] { return client->isClosed(); }, 3s))
            std::_Exit(3);
        if (!test::waitUntil([this] { return sim->stats().inFlight() == 0; }, 3s))
            std::_Exit(4);
        std::_Exit(0);
    }
};

TEST_F(ShutdownTest, GatewayDestroyedWithStreamInFlight)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(destroyGatewayWithRequestInFlight(streamBody(kModelA)), ::testing::ExitedWithCode(0), "");
}

TEST_F(ShutdownTest, GatewayDestroyedWithPlainRequestInFlight)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(destroyGatewayWithRequestInFlight(chatBody(kModelA)), ::testing::ExitedWithCode(0), "");
}

} // namespace
} // namespace sy::integration
