import QtQuick
import QtTest
import Switchyard.Dashboard

Item {
    width: 200; height: 100

    StateBadge { id: badge }

    TestCase {
        name: "StateBadge"

        function test_colourPerState_data() {
            return [
                { tag: "healthy", state: "healthy", color: "#2e9d57" },
                { tag: "degraded", state: "degraded", color: "#c9a227" },
                { tag: "cooling down", state: "cooling_down", color: "#e07b24" },
                { tag: "down", state: "simulated_down", color: "#d0473b" },
                { tag: "disabled", state: "disabled", color: "#8a8a8a" },
                { tag: "unknown", state: "whatever", color: "#8a8a8a" },
            ]
        }

        function test_colourPerState(data) {
            badge.healthState = data.state
            compare(String(badge.color), data.color)
        }
    }
}
