// A titled pane around a configuration text: a tool row (the children given), a warning, the text
// (monospace, scrollable; Ctrl+Enter emits submitted()), and an error or a notice below.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: pane
    property string title: ""
    property alias text: area.text
    property alias readOnly: area.readOnly
    property alias placeholder: area.placeholderText
    property string textObjectName: ""
    property string warning: ""
    property bool warningIsAlarm: false
    property string error: ""
    property string notice: ""
    default property alias tools: toolRow.data
    signal submitted()

    function copyAll() { area.selectAll(); area.copy(); area.deselect() }

    padding: 12
    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        RowLayout {
            id: toolRow
            spacing: 8
            Layout.fillWidth: true
            Label { text: pane.title; font.bold: true; font.pixelSize: 15; Layout.fillWidth: true }
        }
        Label {
            objectName: "warning"
            visible: pane.warning.length > 0
            text: pane.warning
            color: pane.warningIsAlarm ? "#d0473b" : palette.windowText
            opacity: pane.warningIsAlarm ? 1 : 0.7
            font.bold: pane.warningIsAlarm
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        ScrollView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            TextArea {
                id: area
                objectName: pane.textObjectName
                font.family: "monospace"
                wrapMode: TextEdit.NoWrap
                selectByMouse: true
                persistentSelection: true
                Keys.onPressed: (event) => {
                    if ((event.key === Qt.Key_Return || event.key === Qt.Key_Enter) && (event.modifiers & Qt.ControlModifier)) {
                        event.accepted = true
                        pane.submitted()
                    }
                }
            }
        }
        Label {
            objectName: "error"
            visible: pane.error.length > 0
            text: pane.error
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label {
            objectName: "notice"
            visible: pane.notice.length > 0 && pane.error.length === 0
            text: pane.notice
            opacity: 0.75
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
    }
}
