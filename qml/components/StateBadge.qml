// A channel's state as a coloured pill (SPEC §5): healthy, degraded, cooling down, simulated down
// (a failure-lab outage on the channel or one of its models), disabled.
import QtQuick
import QtQuick.Controls

Rectangle {
    id: badge
    property string healthState: "healthy"

    readonly property var colors: ({
        healthy: "#2e9d57",
        degraded: "#c9a227",
        cooling_down: "#e07b24",
        simulated_down: "#d0473b",
        disabled: "#8a8a8a"
    })
    readonly property var labels: ({
        healthy: qsTr("healthy"),
        degraded: qsTr("degraded"),
        cooling_down: qsTr("cooling down"),
        simulated_down: qsTr("simulated down"),
        disabled: qsTr("disabled")
    })

    implicitWidth: text.implicitWidth + 16
    implicitHeight: text.implicitHeight + 6
    radius: height / 2
    color: colors[badge.healthState] ?? "#8a8a8a"

    Label {
        id: text
        objectName: "stateText"
        anchors.centerIn: parent
        text: badge.labels[badge.healthState] ?? badge.healthState
        color: "white"
        font.bold: true
        font.pixelSize: 11
    }
}
