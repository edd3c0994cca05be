// One request's route trace: who asked for what, the candidates in the order they were to be
// tried, the ones filtered out and why, and every attempt with its status, latency and reason.
// `trace` carries the request's fields; `rows` has section/position/channel/modelId/status/
// latencyMs/reason roles (the app passes the same TraceModel for both).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: view
    property var trace
    property var rows

    readonly property bool loaded: !!trace && trace.loaded
    readonly property var sectionTitles: ({
        candidates: qsTr("Candidates, in order"),
        filtered: qsTr("Filtered out"),
        attempts: qsTr("Attempts"),
        notes: qsTr("How the order was made")
    })

    padding: 10
    ColumnLayout {
        anchors.fill: parent
        spacing: 6
        Label {
            text: view.loaded ? qsTr("Request %1").arg(view.trace.requestId) : qsTr("Route trace")
            font.bold: true
            font.pixelSize: 15
            elide: Text.ElideMiddle
            Layout.fillWidth: true
        }
        Label {
            visible: !view.loaded
            text: qsTr("Select a request (click, or the arrow keys) to see how it was routed.")
            opacity: 0.65
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        GridLayout {
            visible: view.loaded
            columns: 2
            columnSpacing: 12
            rowSpacing: 2
            Layout.fillWidth: true
            Label { text: qsTr("Status"); opacity: 0.7 }
            Label {
                objectName: "traceStatus"
                text: view.loaded ? view.trace.status + (view.trace.failedOver ? qsTr("  · failed over") : "")
                                    + (view.trace.error ? " · " + view.trace.error : "") : ""
                color: view.loaded && view.trace.status >= 400 ? "#d0473b" : palette.windowText
                font.bold: true
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
            Label { text: qsTr("Model"); opacity: 0.7 }
            Label {
                text: !view.loaded ? "" : !view.trace.answeringChannel ? view.trace.requestedModel
                      : view.trace.answeringModel === view.trace.requestedModel
                        ? qsTr("%1 via %2").arg(view.trace.requestedModel).arg(view.trace.answeringChannel)
                        : qsTr("%1 → %2 via %3").arg(view.trace.requestedModel).arg(view.trace.answeringModel).arg(view.trace.answeringChannel)
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
            Label { text: qsTr("When"); opacity: 0.7 }
            Label {
                text: view.loaded ? qsTr("%1 · key %2 · %3 ms (queued %4 ms)%5").arg(view.trace.time).arg(view.trace.keyName || "–")
                                    .arg(view.trace.totalMs).arg(view.trace.queueMs).arg(view.trace.stream ? qsTr(" · stream") : "") : ""
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
        }
        ListView {
            id: list
            objectName: "traceList"
            visible: view.loaded
            model: view.rows
            clip: true
            spacing: 2
            Layout.fillWidth: true
            Layout.fillHeight: true
            ScrollBar.vertical: ScrollBar {}
            section.property: "section"
            section.delegate: Label {
                required property string section
                text: view.sectionTitles[section] ?? section
                font.bold: true
                topPadding: 8
                bottomPadding: 2
            }
            delegate: TraceRow {
                width: ListView.view.width
            }
        }
        Item { visible: !view.loaded; Layout.fillHeight: true }
    }
}
