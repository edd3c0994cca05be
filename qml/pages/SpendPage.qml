// Spend and usage history: per day for the last 30 days, by key or by model (GET
// /admin/usage/history?days=30&by=key|model, from the ledger and the request log): requests,
// tokens and cost as daily stacked bars, the same numbers as a table, and the period as CSV
// (the API's `format=csv`) saved to a file the user picks.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard
import "../editors/AdminReply.js" as AdminReply
import "../components/charts/SeriesColors.js" as SeriesColors

Page {
    id: page
    required property var api
    property bool active: false
    property int days: 30
    // The workspace currency the history's costs are in (the reply's `currency`).
    property string currency: ""
    // The history model: load(reply), dates, names, values(name, metric), maxDayTotal(metric),
    // totals, and list roles date, name, requests, promptTokens, completionTokens, cost. A
    // Switchyard.Models UsageHistoryModel made on first use unless one is given (tests give one).
    property var history: null
    // File dialog and IO as ImportExportEditor's: chooseSaveFile(title, name, filter) → path or
    // ""; saveText(path, text) → error or "". A TextFiles made on first use unless given.
    property var files: null

    property string by: "key"              // key | model
    property string error: ""
    property string exportNotice: ""
    property bool loading: false

    property bool completed: false
    onActiveChanged: if (active && completed) reload()
    Component.onCompleted: {
        // Made from text so that the dashboard module does not need Switchyard.Models to load.
        if (!history)
            history = Qt.createQmlObject("import Switchyard.Models\nUsageHistoryModel {}", page, "UsageHistoryModel")
        completed = true
        if (active)
            reload()
    }
    onByChanged: if (completed) reload()

    function target(format) {
        return "/admin/usage/history?days=" + days + "&by=" + by + (format ? "&format=" + format : "")
    }

    function reload() {
        loading = true
        api.admin("GET", target(""), undefined, (status, reply) => {
            loading = false
            error = AdminReply.errorText(status, reply)
            currency = AdminReply.ok(status) ? (reply.currency ?? "") : ""
            history.load(AdminReply.ok(status) ? reply : {})
        })
    }

    function textFiles() {
        if (!files)
            files = Qt.createQmlObject("import Switchyard.Models\nTextFiles {}", page, "TextFiles")
        return files
    }

    function exportCsv() {
        exportNotice = ""
        api.admin("GET", target("csv"), undefined, (status, reply) => {
            error = AdminReply.errorText(status, reply)
            if (!AdminReply.ok(status))
                return
            const path = textFiles().chooseSaveFile(qsTr("Save the usage history"),
                                                    "switchyard-usage-by-" + by + ".csv", qsTr("CSV (*.csv);;All files (*)"))
            if (!path)
                return
            error = textFiles().saveText(path, String(reply))
            if (!error)
                exportNotice = qsTr("Saved to %1").arg(path)
        })
    }

    function money(v) { return Number(v).toFixed(Math.abs(v) >= 10 ? 2 : 4) + (currency ? " " + currency : "") }
    function count(v) { return Math.round(Number(v)).toLocaleString(Qt.locale(), "f", 0) }

    // A table cell: a share of the table's width; numbers are right-aligned.
    component Cell: Label {
        property real share: 0.13
        property bool numeric: true
        // Pinned: the header and the rows must put each column at the same x whatever the texts.
        Layout.preferredWidth: (page.availableWidth - 40) * share
        Layout.minimumWidth: Layout.preferredWidth
        Layout.maximumWidth: Layout.preferredWidth
        elide: Text.ElideRight
        horizontalAlignment: numeric ? Text.AlignRight : Text.AlignLeft
    }

    padding: 12

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        RowLayout {
            spacing: 12
            Label { text: qsTr("Last %1 days").arg(page.days); font.bold: true; font.pixelSize: 15 }
            TabBar {
                id: byTabs
                objectName: "spendBy"
                currentIndex: page.by === "model" ? 1 : 0
                TabButton { objectName: "byKey"; text: qsTr("By key"); font.bold: checked; width: implicitWidth + 16; onClicked: page.by = "key" }
                TabButton { objectName: "byModel"; text: qsTr("By model"); font.bold: checked; width: implicitWidth + 16; onClicked: page.by = "model" }
            }
            Label {
                objectName: "spendTotals"
                text: page.history ? qsTr("%1 requests · %2 tokens · %3")
                                     .arg(page.count(page.history.totalRequests)).arg(page.count(page.history.totalTokens))
                                     .arg(page.money(page.history.totalCost)) : ""
                opacity: 0.8
            }
            Item { Layout.fillWidth: true }
            Button { objectName: "refreshSpend"; text: qsTr("Refresh"); enabled: !page.loading; onClicked: page.reload() }
            Button { objectName: "exportCsv"; text: qsTr("Export CSV…"); onClicked: page.exportCsv() }
        }
        Label {
            objectName: "spendError"
            visible: page.error.length > 0
            text: page.error
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label {
            objectName: "spendNotice"
            visible: page.exportNotice.length > 0
            text: page.exportNotice
            opacity: 0.8
            Layout.fillWidth: true
        }

        // Legend: one swatch per name, in the bars' colours.
        Flow {
            Layout.fillWidth: true
            spacing: 14
            Repeater {
                model: page.history ? page.history.names : []
                delegate: Row {
                    required property string modelData
                    required property int index
                    spacing: 4
                    Rectangle { width: 12; height: 12; anchors.verticalCenter: parent.verticalCenter; color: SeriesColors.forRow(index) }
                    Label { text: modelData; font.pixelSize: 12 }
                }
            }
        }

        RowLayout {
            spacing: 8
            Layout.fillWidth: true
            // A fixed share of the page: the table below gets the rest.
            Layout.preferredHeight: Math.max(200, page.availableHeight * 0.42)
            Layout.maximumHeight: Math.max(200, page.availableHeight * 0.42)
            UsageBarChart {
                objectName: "requestsByDay"
                title: qsTr("Requests per day")
                source: page.history
                metric: "requests"
                Layout.fillWidth: true
                Layout.fillHeight: true
            }
            UsageBarChart {
                objectName: "tokensByDay"
                title: qsTr("Tokens per day (thousands)")
                source: page.history
                metric: "tokens"
                scale: 1000
                Layout.fillWidth: true
                Layout.fillHeight: true
            }
            UsageBarChart {
                objectName: "costByDay"
                title: page.currency ? qsTr("Cost per day (%1)").arg(page.currency) : qsTr("Cost per day")
                source: page.history
                metric: "cost"
                Layout.fillWidth: true
                Layout.fillHeight: true
            }
        }

        // The table: a header, then one row per day and name.
        RowLayout {
            spacing: 8
            Layout.fillWidth: true
            Cell { share: 0.12; numeric: false; text: qsTr("Day"); font.bold: true }
            Cell { share: 0.3; numeric: false; text: page.by === "model" ? qsTr("Model") : qsTr("Key"); font.bold: true }
            Cell { text: qsTr("Requests"); font.bold: true }
            Cell { text: qsTr("Prompt tokens"); font.bold: true }
            Cell { text: qsTr("Completion tokens"); font.bold: true }
            Cell { text: qsTr("Cost"); font.bold: true }
            Item { Layout.fillWidth: true }
        }
        ListView {
            id: table
            objectName: "spendTable"
            model: page.history
            clip: true
            Layout.fillWidth: true
            Layout.fillHeight: true
            Layout.minimumHeight: 120
            ScrollBar.vertical: ScrollBar {}
            delegate: RowLayout {
                required property string date
                required property string name
                required property real requests
                required property real promptTokens
                required property real completionTokens
                required property real cost
                width: ListView.view.width
                spacing: 8
                Cell { share: 0.12; numeric: false; text: date }
                Cell { share: 0.3; numeric: false; text: name }
                Cell { text: page.count(requests) }
                Cell { text: page.count(promptTokens) }
                Cell { text: page.count(completionTokens) }
                Cell { text: page.money(cost) }
                Item { Layout.fillWidth: true }
            }
            Label {
                anchors.centerIn: parent
                visible: table.count === 0 && !page.loading
                text: qsTr("No requests in the last %1 days").arg(page.days)
                opacity: 0.6
            }
        }
    }
}
