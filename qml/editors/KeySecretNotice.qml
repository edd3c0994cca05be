// The secret of a key just created, with a copy button. The gateway keeps only its hash, so this
// is the one chance to store it; the notice stays until dismissed.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: notice
    property string keyName: ""
    property string secret: ""
    signal dismissed()

    padding: 12
    background: Rectangle {
        color: Qt.rgba(0.79, 0.64, 0.15, 0.12)
        border.color: "#c9a227"
        radius: 4
    }
    ColumnLayout {
        anchors.fill: parent
        spacing: 6
        Label {
            text: qsTr("Secret of key “%1”: shown once, store it now").arg(notice.keyName)
            font.bold: true
        }
        Label {
            text: qsTr("The gateway keeps only a hash of it: once you dismiss this, nobody can show it again. If it is lost, delete the key and create a new one.")
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        RowLayout {
            spacing: 8
            Layout.fillWidth: true
            TextField {
                id: secretField
                objectName: "secretField"
                text: notice.secret
                readOnly: true
                selectByMouse: true
                font.family: "monospace"
                Layout.fillWidth: true
            }
            Button {
                objectName: "copySecret"
                text: qsTr("Copy")
                Accessible.name: qsTr("Copy the key's secret")
                onClicked: { secretField.selectAll(); secretField.copy(); secretField.deselect() }
            }
            Button {
                objectName: "dismissSecret"
                text: qsTr("I have stored it")
                onClicked: notice.dismissed()
            }
        }
    }
}
