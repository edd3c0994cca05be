// Shown over the pages when the gateway cannot start: what failed, the file or port, and what to
// do (the host's message, which names them), with a button to copy the text.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Item {
    id: panel
    property string message: ""

    visible: message.length > 0

    // Dims the pages: they stay empty while the gateway is not running.
    Rectangle {
        anchors.fill: parent
        color: card.palette.window
        opacity: 0.85
    }
    MouseArea { anchors.fill: parent }   // the empty pages under it take no clicks

    Frame {
        id: card
        anchors.centerIn: parent
        width: Math.min(parent.width - 48, 760)
        padding: 20
        background: Rectangle {
            color: card.palette.base
            border.color: "#d0473b"
            border.width: 2
            radius: 6
        }
        ColumnLayout {
            anchors.left: parent.left
            anchors.right: parent.right
            spacing: 12
            Label {
                text: qsTr("⚠ The gateway could not start")
                color: "#d0473b"
                font.bold: true
                font.pixelSize: 20
                Layout.fillWidth: true
            }
            TextArea {
                id: messageText
                objectName: "startFailureText"
                text: panel.message
                readOnly: true
                selectByMouse: true
                wrapMode: TextEdit.Wrap
                font.pixelSize: 14
                background: null
                Layout.fillWidth: true
            }
            RowLayout {
                Layout.fillWidth: true
                Label {
                    text: qsTr("The message is also printed on the terminal (stderr).")
                    opacity: 0.7
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                }
                Button {
                    objectName: "copyStartFailure"
                    text: qsTr("Copy")
                    Accessible.name: qsTr("Copy the error message")
                    onClicked: { messageText.selectAll(); messageText.copy(); messageText.deselect() }
                }
            }
        }
    }
}
