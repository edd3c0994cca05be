// One row of a route trace: a candidate, a filtered candidate, an attempt or an ordering note.
// First line: position, channel, status, latency; second line: the model and the reason.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ColumnLayout {
    id: row
    required property string section
    required property int position
    required property string channel
    required property string modelId
    required property string status
    required property real latencyMs
    required property string reason

    readonly property bool isNote: section === "notes"
    readonly property color statusColor: status === "ok" || status === "answered" ? "#2e9d57" : "#d0473b"
    readonly property string detail: [modelId, reason].filter(s => s.length > 0).join(" — ")

    spacing: 0

    RowLayout {
        spacing: 8
        Layout.fillWidth: true
        Label { text: row.isNote ? "•" : row.position + "."; opacity: 0.6; Layout.preferredWidth: 18 }
        Label {
            visible: !row.isNote
            text: row.channel
            font.bold: true
            elide: Text.ElideRight
            Layout.maximumWidth: 200
        }
        Label {
            visible: row.status.length > 0
            text: row.status
            color: row.statusColor
            font.bold: true
        }
        Label {
            visible: row.latencyMs >= 0
            text: Math.round(row.latencyMs) + " ms"
            opacity: 0.8
        }
        Label {
            visible: row.isNote
            text: row.reason
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Item { visible: !row.isNote; Layout.fillWidth: true }
    }
    Label {
        visible: !row.isNote && row.detail.length > 0
        text: row.detail
        opacity: 0.75
        font.pixelSize: 12
        wrapMode: Text.Wrap
        maximumLineCount: 3
        elide: Text.ElideRight
        Layout.leftMargin: 26
        Layout.fillWidth: true
    }
}
