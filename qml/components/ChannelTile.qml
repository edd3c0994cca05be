// One channel at a glance: health state, load, rates, TTFT and the failure-lab outage if any.
// Figures of -1 mean "no data yet".
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Frame {
    id: tile
    property string channelId: ""
    property string provider: ""
    property string healthState: "healthy"
    property int inFlight: 0
    property int capacity: 0
    property int queued: 0
    property real requestsPerSecond: 0
    property real errorRate: 0
    property real ttftP50: -1
    property real ttftP90: -1
    property real tokensPerSecond: -1
    property string outage: ""
    // The channel does not check its upstream's TLS certificate (`tls.insecure`): a standing warning.
    property bool tlsInsecure: false

    function ms(v) { return v < 0 ? "–" : (v >= 10000 ? (v / 1000).toFixed(1) + " s" : Math.round(v) + " ms") }

    padding: 10
    ColumnLayout {
        anchors.left: parent.left
        anchors.right: parent.right
        spacing: 6

        RowLayout {
            Layout.fillWidth: true
            Label {
                text: tile.channelId
                font.bold: true
                font.pixelSize: 16
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
            StateBadge { healthState: tile.healthState }
        }
        Label {
            text: qsTr("%1 · in flight %2/%3 · queue %4").arg(tile.provider).arg(tile.inFlight)
                      .arg(tile.capacity > 0 ? tile.capacity : "∞").arg(tile.queued)
            opacity: 0.75
            font.pixelSize: 12
            elide: Text.ElideRight
            Layout.fillWidth: true
        }
        GridLayout {
            columns: 4
            columnSpacing: 14
            rowSpacing: 2
            Layout.fillWidth: true
            Figure { label: qsTr("req/s"); value: tile.requestsPerSecond.toFixed(1) }
            Figure {
                label: qsTr("errors")
                value: (tile.errorRate * 100).toFixed(tile.errorRate > 0 && tile.errorRate < 0.1 ? 1 : 0) + " %"
                valueColor: tile.errorRate >= 0.05 ? "#d0473b" : "transparent"
            }
            Figure { label: qsTr("TTFT p50"); value: tile.ms(tile.ttftP50) }
            Figure { label: qsTr("p90"); value: tile.ms(tile.ttftP90) }
        }
        Label {
            objectName: "insecureWarning"
            visible: tile.tlsInsecure
            text: qsTr("⚠ TLS certificate not checked")
            color: "#c27c0e"
            font.pixelSize: 12
            font.bold: true
            elide: Text.ElideRight
            Layout.fillWidth: true
        }
        Rectangle {
            objectName: "outageBadge"
            // The slot is kept when there is no outage, so tiles keep one height as outages come and go.
            opacity: tile.outage.length > 0 ? 1 : 0
            color: "#d0473b"
            radius: 4
            Layout.fillWidth: true
            implicitHeight: outageText.implicitHeight + 6
            Label {
                id: outageText
                anchors.fill: parent
                anchors.leftMargin: 6
                anchors.rightMargin: 6
                verticalAlignment: Text.AlignVCenter
                text: qsTr("⚠ outage: %1").arg(tile.outage)
                color: "white"
                font.pixelSize: 12
                elide: Text.ElideRight
            }
        }
    }
}
