// The live failover feed, newest first: "cloudru 503 → yandex ok, 812 ms".
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: feedFrame
    property var model
    property bool showAll: false
    signal showAllToggled(bool showAll)
    signal requestActivated(string requestId)

    padding: 8
    ColumnLayout {
        anchors.fill: parent
        spacing: 4
        RowLayout {
            Layout.fillWidth: true
            Label { text: qsTr("Failover feed"); font.bold: true; Layout.fillWidth: true }
            CheckBox {
                text: qsTr("All requests")
                checked: feedFrame.showAll
                onToggled: feedFrame.showAllToggled(checked)
            }
        }
        ListView {
            id: list
            objectName: "feedList"
            model: feedFrame.model
            clip: true
            spacing: 2
            Layout.fillWidth: true
            Layout.fillHeight: true
            ScrollBar.vertical: ScrollBar {}
            delegate: ItemDelegate {
                required property string requestId
                required property string time
                required property string modelId
                required property string summary
                required property int status
                width: ListView.view.width
                padding: 4
                onClicked: feedFrame.requestActivated(requestId)
                // A Column, not a ColumnLayout: a layout sizes the row by the summary's one-line
                // height, a Column by its height once wrapped at the row's width.
                contentItem: Column {
                    spacing: 0
                    RowLayout {
                        width: parent.width
                        Label { text: time; opacity: 0.7; font.pixelSize: 11 }
                        Label {
                            text: status
                            font.pixelSize: 11
                            font.bold: true
                            color: status >= 400 ? "#d0473b" : "#2e9d57"
                        }
                        Label { text: modelId; opacity: 0.7; font.pixelSize: 11; elide: Text.ElideRight; Layout.fillWidth: true }
                    }
                    // Wrapped, not cut: a long failover chain is the point of the line.
                    Label { objectName: "feedSummary"; text: summary; wrapMode: Text.Wrap; width: parent.width; font.pixelSize: 12 }
                }
            }
            Label {
                anchors.centerIn: parent
                visible: list.count === 0
                text: qsTr("No failovers yet")
                opacity: 0.6
            }
        }
    }
}
