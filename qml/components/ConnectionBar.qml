// "Point your client here": the gateway's state, its base URL and the demo key, each with a copy
// button. Shown in the window header.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

RowLayout {
    id: bar
    property bool listening: false
    property string url: ""
    property string apiKey: ""
    property string error: ""

    spacing: 8

    Rectangle {
        width: 12; height: 12; radius: 6
        color: bar.listening ? "#2e9d57" : (bar.error ? "#d0473b" : "#c9a227")
    }
    Label {
        objectName: "gatewayStatus"
        visible: !bar.listening
        text: bar.error ? qsTr("Gateway failed to start") : qsTr("Starting the gateway…")
        color: bar.error ? "#d0473b" : palette.windowText
    }
    Label { visible: bar.listening; text: qsTr("Base URL"); opacity: 0.75 }
    TextField {
        id: urlField
        objectName: "baseUrlField"
        visible: bar.listening
        text: bar.url + "/v1"
        readOnly: true
        selectByMouse: true
        Layout.preferredWidth: 200
    }
    Button {
        visible: bar.listening
        text: qsTr("Copy")
        Accessible.name: qsTr("Copy base URL")
        onClicked: { urlField.selectAll(); urlField.copy(); urlField.deselect() }
    }
    Label { visible: bar.listening && bar.apiKey.length > 0; text: qsTr("API key"); opacity: 0.75 }
    TextField {
        id: keyField
        objectName: "apiKeyField"
        visible: bar.listening && bar.apiKey.length > 0
        text: bar.apiKey
        readOnly: true
        selectByMouse: true
        Layout.preferredWidth: 160
    }
    Button {
        visible: keyField.visible
        text: qsTr("Copy")
        Accessible.name: qsTr("Copy API key")
        onClicked: { keyField.selectAll(); keyField.copy(); keyField.deselect() }
    }
}
