// A gateway key's breaker state as a coloured pill: closed, suspended (for a while), disabled
// (until reset). SPEC §8 "Key breaker".
import QtQuick
import QtQuick.Controls

Rectangle {
    id: badge
    property string breakerState: "closed"

    readonly property var colors: ({ closed: "#2e9d57", suspended: "#e07b24", disabled: "#d0473b" })
    readonly property var labels: ({
        closed: qsTr("breaker closed"),
        suspended: qsTr("suspended by breaker"),
        disabled: qsTr("disabled by breaker")
    })

    implicitWidth: text.implicitWidth + 16
    implicitHeight: text.implicitHeight + 6
    radius: height / 2
    color: colors[badge.breakerState] ?? "#8a8a8a"

    Label {
        id: text
        anchors.centerIn: parent
        text: badge.labels[badge.breakerState] ?? badge.breakerState
        color: "white"
        font.bold: true
        font.pixelSize: 11
    }
}
