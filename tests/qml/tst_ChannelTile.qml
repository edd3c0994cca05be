import QtQuick
import QtTest
import Switchyard.Dashboard

Item {
    width: 400; height: 300

    ChannelTile {
        id: tile
        width: 300
        channelId: "cloudru"
        provider: "cloudru"
        healthState: "degraded"
        inFlight: 3
        capacity: 8
        requestsPerSecond: 2.5
        errorRate: 0.25
        ttftP50: 420
        ttftP90: -1
    }

    TestCase {
        name: "ChannelTile"
        when: windowShown

        function findByText(item, text) {
            if (item.text !== undefined && String(item.text) === text)
                return item
            for (let i = 0; i < item.children.length; ++i) {
                const found = findByText(item.children[i], text)
                if (found)
                    return found
            }
            return null
        }

        function test_showsFiguresWithUnits() {
            verify(findByText(tile, "cloudru · in flight 3/8 · queue 0"))
            verify(findByText(tile, "2.5"))
            verify(findByText(tile, "25 %"))
            verify(findByText(tile, "420 ms"))
            verify(findByText(tile, "–"), "a missing percentile shows a dash")
            verify(findByText(tile, "degraded"))
        }

        function test_simulatedDownStateIsShownInRed() {
            tile.healthState = "simulated_down"
            verify(findByText(tile, "simulated down"))
            const state = findByText(tile, "simulated down").parent
            compare(String(state.color), "#d0473b")
            tile.healthState = "degraded"
            verify(!findByText(tile, "simulated down"))
        }

        function test_outageBadgeOnlyWhileAnOutageIsInForce() {
            const badge = findChild(tile, "outageBadge")
            verify(badge)
            compare(badge.opacity, 0)
            tile.outage = "503 for 30 s"
            compare(badge.opacity, 1)
            verify(findByText(tile, "⚠ outage: 503 for 30 s"))
            tile.outage = ""
            compare(badge.opacity, 0)
        }

        function test_insecureTlsShowsAWarning() {
            const warning = findChild(tile, "insecureWarning")
            verify(warning)
            verify(!warning.visible)
            tile.tlsInsecure = true
            verify(warning.visible)
            verify(warning.text.indexOf("TLS") >= 0)
            tile.tlsInsecure = false
        }
    }
}
