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
                { tag: "healthy", state: "healthy", color: "#2e9d57", text: "healthy" },
                { tag: "degraded", state: "degraded", color: "#c9a227", text: "degraded" },
                { tag: "cooling down", state: "cooling_down", color: "#e07b24", text: "cooling down" },
                { tag: "simulated down", state: "simulated_down", color: "#d0473b", text: "simulated down" },
                { tag: "disabled", state: "disabled", color: "#8a8a8a", text: "disabled" },
                { tag: "unknown", state: "whatever", color: "#8a8a8a", text: "whatever" },
            ]
        }

        function test_colourPerState(data) {
            badge.healthState = data.state
            compare(String(badge.color), data.color)
            compare(findChild(badge, "stateText").text, data.text)
        }
    }
}
