// The outages in force, each with a "Restore" button, and "Restore all".
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: outageList
    property var model
    signal restoreRequested(real outageId)
    signal restoreAllRequested()

    padding: 12
    ColumnLayout {
        anchors.fill: parent
        spacing: 6
        RowLayout {
            Layout.fillWidth: true
            Label { text: qsTr("Active outages"); font.bold: true; font.pixelSize: 15; Layout.fillWidth: true }
            Button {
                text: qsTr("Restore all")
                enabled: list.count > 0
                onClicked: outageList.restoreAllRequested()
            }
        }
        ListView {
            id: list
            objectName: "outageList"
            model: outageList.model
            clip: true
            spacing: 4
            Layout.fillWidth: true
            Layout.fillHeight: true
            delegate: RowLayout {
                required property real outageId
                required property string targetKind
                required property string target
                required property string description
                width: ListView.view.width
                Rectangle { width: 10; height: 10; radius: 5; color: "#d0473b" }
                Label {
                    text: qsTr("%1 %2 — %3").arg(targetKind).arg(target).arg(description)
                    elide: Text.ElideRight
                    Layout.fillWidth: true
                }
                Button {
                    text: qsTr("Restore")
                    onClicked: outageList.restoreRequested(outageId)
                }
            }
            Label {
                anchors.centerIn: parent
                visible: list.count === 0
                text: qsTr("Everything is up")
                opacity: 0.6
            }
        }
    }
}
