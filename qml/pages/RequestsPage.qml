// Requests: the request log with filters (key, model, status, failed over) and the route trace
// of the selected request. Filters are properties the owner binds to the log's query.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Page {
    id: page
    property var requestLog            // RequestLogModel or a ListModel with the same roles
    property var trace                 // the selected request (TraceModel properties)
    property var traceRows             // its rows (the same TraceModel in the app)
    property var keyNames: []
    property var modelIds: []
    property string keyFilter: ""
    property string modelFilter: ""
    property string statusFilter: ""   // "" | ok | failed | an exact status
    property bool failedOverOnly: false
    // Fetch the log live: on unless switched off, paused while the pointer is over the rows.
    readonly property bool live: liveBox.checked && !requestTable.rowsHovered
    signal requestSelected(string requestId)

    readonly property var statusChoices: [
        { text: qsTr("Any status"), value: "" }, { text: qsTr("Succeeded"), value: "ok" },
        { text: qsTr("Failed"), value: "failed" }, { text: "429", value: "429" },
        { text: "502", value: "502" }, { text: "503", value: "503" }
    ]

    readonly property real traceWidth: Math.max(300, Math.floor(availableWidth * 0.36))

    padding: 12

    // The log on the left, the trace on the right, split by anchors (a RowLayout looped on the
    // elided labels' implicit widths).
    Item {
        anchors.fill: parent

        ColumnLayout {
            anchors.left: parent.left
            anchors.right: traceView.left
            anchors.rightMargin: 12
            anchors.top: parent.top
            anchors.bottom: parent.bottom
            spacing: 8
            clip: true

            // The filters, wrapping onto a second line when the column is narrow.
            Flow {
                spacing: 8
                Layout.fillWidth: true
                Layout.preferredHeight: childrenRect.height
                Label { text: qsTr("Key"); height: keyBox.height; verticalAlignment: Text.AlignVCenter }
                ComboBox {
                    id: keyBox
                    objectName: "keyFilterBox"
                    model: [qsTr("Any key")].concat(page.keyNames)
                    onActivated: (i) => page.keyFilter = i === 0 ? "" : page.keyNames[i - 1]
                    width: 110
                }
                Label { text: qsTr("Model"); height: keyBox.height; verticalAlignment: Text.AlignVCenter }
                ComboBox {
                    objectName: "modelFilterBox"
                    model: [qsTr("Any model")].concat(page.modelIds)
                    onActivated: (i) => page.modelFilter = i === 0 ? "" : page.modelIds[i - 1]
                    width: 220
                }
                ComboBox {
                    objectName: "statusFilterBox"
                    model: page.statusChoices
                    textRole: "text"
                    onActivated: (i) => page.statusFilter = page.statusChoices[i].value
                    width: 110
                }
                CheckBox {
                    objectName: "failedOverBox"
                    text: qsTr("Failed over")
                    checked: page.failedOverOnly
                    onToggled: page.failedOverOnly = checked
                }
                CheckBox {
                    id: liveBox
                    objectName: "liveBox"
                    text: qsTr("Live")
                    checked: true
                }
            }

            RequestTable {
                id: requestTable
                model: page.requestLog
                selectedId: page.trace && page.trace.loaded ? page.trace.requestId : ""
                onRequestSelected: (requestId) => page.requestSelected(requestId)
                Layout.fillWidth: true
                Layout.fillHeight: true
            }
        }

        TraceView {
            id: traceView
            width: page.traceWidth
            anchors.right: parent.right
            anchors.top: parent.top
            anchors.bottom: parent.bottom
            trace: page.trace
            rows: page.traceRows
        }
    }
}
