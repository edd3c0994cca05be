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

    // Below this height the charts would be too flat to read: the page scrolls instead.
    readonly property real chartsMinimumHeight: 300

    ScrollView {
        id: scroller
        anchors.fill: parent
        contentWidth: availableWidth
        // From the parts above the charts, not from the column's own height (which is this).
        contentHeight: Math.max(availableHeight, (errorLabel.visible ? errorLabel.implicitHeight + content.spacing : 0)
                                + stats.implicitHeight + tileGrid.implicitHeight + 2 * content.spacing + page.chartsMinimumHeight)
        ScrollBar.horizontal.policy: ScrollBar.AlwaysOff
        // The page's size comes from the window, never from what it scrolls (that would loop).
        implicitWidth: 0
        implicitHeight: 0

        ColumnLayout {
            id: content
            width: scroller.availableWidth
            height: scroller.contentHeight
            spacing: 10

            Label {
                id: errorLabel
                visible: page.error.length > 0
                text: page.error
                color: "#d0473b"
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }

            // Eight figures in a row, four in two rows on a narrow window.
            GridLayout {
                id: stats
                columns: width >= 900 ? 8 : 4
                columnSpacing: 10
                rowSpacing: 10
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

            // As many tiles in a row as fit at their width (280 px and the spacing), the rest below.
            GridLayout {
                id: tileGrid
                columns: Math.max(1, Math.min(tileRepeater.count, Math.floor((width + columnSpacing) / (280 + columnSpacing))))
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
                        // Equal columns: the grid shares the row out by these, not by each tile's text.
                        Layout.preferredWidth: 280
                        Layout.minimumWidth: 0
                    }
                }
            }

            RowLayout {
                id: charts
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
                        Layout.fillWidth: true
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
                    // A third of the row at most, so the charts keep room on a narrow window.
                    Layout.preferredWidth: Math.min(340, charts.width / 3)
                    Layout.fillHeight: true
                }
            }
        }
    }
}
