// Gateway status: where it listens, how to call it, and live request counters.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Page {
    id: page
    property bool listening: false
    property string url: ""
    property string demoKey: ""
    property string error: ""
    property real requests: 0
    property real succeeded: 0
    property real failed: 0
    property int inFlight: 0

    padding: 32

    ColumnLayout {
        anchors.fill: parent
        spacing: 20

        RowLayout {
            spacing: 12
            Rectangle {
                width: 16; height: 16; radius: 8
                color: page.listening ? "#2e9d57" : (page.error ? "#d0473b" : "#c9a227")
            }
            Label {
                text: page.listening ? qsTr("Gateway listening on %1").arg(page.url)
                                     : (page.error ? qsTr("Gateway not running") : qsTr("Starting the gateway…"))
                font.pixelSize: 24
                font.bold: true
            }
        }

        Label {
            visible: page.error.length > 0
            text: page.error
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }

        GroupBox {
            visible: page.listening
            title: qsTr("Point your OpenAI client here")
            Layout.fillWidth: true
            GridLayout {
                anchors.left: parent.left
                anchors.right: parent.right
                columns: 2
                columnSpacing: 16
                Label { text: qsTr("Base URL") }
                TextField { text: page.url + "/v1"; readOnly: true; selectByMouse: true; Layout.fillWidth: true }
                Label { text: qsTr("API key"); visible: page.demoKey.length > 0 }
                TextField { text: page.demoKey; readOnly: true; selectByMouse: true; visible: page.demoKey.length > 0; Layout.fillWidth: true }
            }
        }

        GridLayout {
            visible: page.listening
            columns: 4
            columnSpacing: 24
            Repeater {
                model: [
                    { label: qsTr("Requests"), value: page.requests },
                    { label: qsTr("Succeeded"), value: page.succeeded },
                    { label: qsTr("Failed"), value: page.failed },
                    { label: qsTr("In flight"), value: page.inFlight }
                ]
                delegate: Frame {
                    required property var modelData
                    Layout.preferredWidth: 200
                    ColumnLayout {
                        Label { text: modelData.label; opacity: 0.7 }
                        Label { text: Number(modelData.value).toLocaleString(Qt.locale(), "f", 0); font.pixelSize: 32 }
                    }
                }
            }
        }

        Item { Layout.fillHeight: true }
    }
}
