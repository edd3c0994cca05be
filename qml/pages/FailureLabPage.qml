// Failure lab: take channels or models down on purpose, restore them, and run demo traffic to
// watch failover live.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Page {
    id: page
    property var channelIds: []
    property var modelIds: []
    property var outages               // OutagesModel or a ListModel with the same roles
    property string lastActionError: ""
    property bool trafficAvailable: false
    property bool trafficRunning: false
    property real trafficRate: 2
    property real trafficStreamShare: 0.5
    property var trafficModels: []
    property real trafficSent: 0
    property real trafficSucceeded: 0
    property real trafficFailed: 0
    signal outageRequested(string targetKind, string target, string kind, int seconds)
    signal restoreRequested(real outageId)
    signal restoreAllRequested()
    signal trafficRequested(bool running, real rate, real streamShare, var models)

    padding: 12

    ColumnLayout {
        anchors.fill: parent
        spacing: 10
        Label {
            visible: page.lastActionError.length > 0
            text: page.lastActionError
            color: "#d0473b"
            Layout.fillWidth: true
        }
        // Two halves by anchors: a RowLayout sized the left half by its contents and let them spill
        // under the right half.
        Item {
            Layout.fillWidth: true
            Layout.fillHeight: true

            OutageControls {
                id: outageControls
                width: Math.floor((parent.width - 12) / 2)
                anchors.top: parent.top
                anchors.bottom: parent.bottom
                channelIds: page.channelIds
                modelIds: page.modelIds
                onOutageRequested: (targetKind, target, kind, seconds) => page.outageRequested(targetKind, target, kind, seconds)
            }
            ColumnLayout {
                anchors.left: outageControls.right
                anchors.leftMargin: 12
                anchors.right: parent.right
                anchors.top: parent.top
                anchors.bottom: parent.bottom
                spacing: 12
                OutageList {
                    model: page.outages
                    onRestoreRequested: (outageId) => page.restoreRequested(outageId)
                    onRestoreAllRequested: page.restoreAllRequested()
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                }
                TrafficControls {
                    available: page.trafficAvailable
                    running: page.trafficRunning
                    rate: page.trafficRate
                    streamShare: page.trafficStreamShare
                    models: page.trafficModels
                    modelIds: page.modelIds
                    sent: page.trafficSent
                    succeeded: page.trafficSucceeded
                    failed: page.trafficFailed
                    onTrafficRequested: (running, rate, streamShare, models) => page.trafficRequested(running, rate, streamShare, models)
                    Layout.fillWidth: true
                }
            }
        }
    }
}
