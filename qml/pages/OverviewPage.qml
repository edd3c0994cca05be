// Overview: headline totals, a tile per channel, the last five minutes in charts and the live
// failover feed. Everything comes in through properties.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Page {
    id: page
    property var tiles                 // ChannelTilesModel or a ListModel with the same roles
    property var feed
    property bool feedShowAll: false
    property var historyChannels       // rows with a channelId role
    property var historySource         // fillSeries(series, row, metric), maxValue(metric), sampled()
    property string error: ""
    property real requests: 0
    property real requestsPerSecond: 0
    property real failedOver: 0
    property real failed: 0
    property int inFlight: 0
    property real tokens: 0
    property string balance: "—"
    property string spendToday: "—"
    // False while the window is off screen (hidden to the tray, minimized): charts stop drawing.
    property bool drawn: true
    signal feedShowAllToggled(bool showAll)
    signal requestActivated(string requestId)

    function count(v) { return Number(v).toLocaleString(Qt.locale(), "f", 0) }

    padding: 12

    ColumnLayout {
        anchors.fill: parent
        spacing: 10

        Label {
            visible: page.error.length > 0
            text: page.error
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }

        RowLayout {
            spacing: 10
            Layout.fillWidth: true
            StatCard { label: qsTr("Requests"); value: page.count(page.requests); Layout.fillWidth: true; Layout.preferredWidth: 100 }
            StatCard { label: qsTr("Requests/s"); value: page.requestsPerSecond.toFixed(1); Layout.fillWidth: true; Layout.preferredWidth: 100 }
            StatCard {
                label: qsTr("Failovers")
                value: page.count(page.failedOver)
                accent: page.failedOver > 0 ? "#e07b24" : palette.windowText
                Layout.fillWidth: true
                Layout.preferredWidth: 100
            }
            StatCard {
                label: qsTr("Failed")
                value: page.count(page.failed)
                accent: page.failed > 0 ? "#d0473b" : palette.windowText
                Layout.fillWidth: true
                Layout.preferredWidth: 100
            }
            StatCard { label: qsTr("In flight"); value: page.count(page.inFlight); Layout.fillWidth: true; Layout.preferredWidth: 100 }
            StatCard { label: qsTr("Tokens"); value: page.count(page.tokens); Layout.fillWidth: true; Layout.preferredWidth: 100 }
            StatCard { label: qsTr("Balance"); value: page.balance; Layout.fillWidth: true; Layout.preferredWidth: 170 }
            StatCard { label: qsTr("Spent today"); value: page.spendToday; Layout.fillWidth: true; Layout.preferredWidth: 170 }
        }

        GridLayout {
            id: tileGrid
            columns: Math.max(1, Math.min(tileRepeater.count, Math.floor(width / 280)))
            columnSpacing: 10
            rowSpacing: 10
            Layout.fillWidth: true
            Repeater {
                id: tileRepeater
                objectName: "tileRepeater"
                model: page.tiles
                delegate: ChannelTile {
                    required channelId
                    required provider
                    required healthState
                    required inFlight
                    required capacity
                    required queued
                    required requestsPerSecond
                    required errorRate
                    required ttftP50
                    required ttftP90
                    required outage
                    required tlsInsecure
                    Layout.fillWidth: true
                    Layout.preferredWidth: 280
                }
            }
        }

        RowLayout {
            spacing: 10
            Layout.fillWidth: true
            Layout.fillHeight: true

            ColumnLayout {
                spacing: 0
                Layout.fillWidth: true
                Layout.fillHeight: true
                ChartLegend {
                    channels: page.historyChannels
                    note: qsTr("TTFT: solid p50, dashed p90 · last 5 minutes")
                    Layout.leftMargin: 8
                }
                GridLayout {
                    columns: 2
                    rowSpacing: 0
                    columnSpacing: 0
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    HistoryChart {
                        live: page.drawn
                        objectName: "requestsChart"
                        title: qsTr("Requests/s per channel")
                        channels: page.historyChannels; source: page.historySource
                        metrics: ["requests"]
                        Layout.fillWidth: true; Layout.fillHeight: true
                    }
                    HistoryChart {
                        live: page.drawn
                        objectName: "ttftChart"
                        title: qsTr("Time to first token")
                        channels: page.historyChannels; source: page.historySource
                        metrics: ["ttftP50", "ttftP90"]
                        unit: "ms"
                        Layout.fillWidth: true; Layout.fillHeight: true
                    }
                    HistoryChart {
                        live: page.drawn
                        objectName: "errorsChart"
                        title: qsTr("Errors/s")
                        channels: page.historyChannels; source: page.historySource
                        metrics: ["errors"]
                        Layout.fillWidth: true; Layout.fillHeight: true
                    }
                    HistoryChart {
                        live: page.drawn
                        objectName: "tokensChart"
                        title: qsTr("Completion tokens/s")
                        channels: page.historyChannels; source: page.historySource
                        metrics: ["tokens"]
                        Layout.fillWidth: true; Layout.fillHeight: true
                    }
                }
            }

            FeedList {
                model: page.feed
                showAll: page.feedShowAll
                onShowAllToggled: (showAll) => page.feedShowAllToggled(showAll)
                onRequestActivated: (requestId) => page.requestActivated(requestId)
                Layout.preferredWidth: 340
                Layout.fillHeight: true
            }
        }
    }
}
