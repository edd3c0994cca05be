// "Point your client here": the gateway's state, its base URL and the demo key, each with a copy
// button. Shown in the window header; give it the header's spare width (Layout.fillWidth): it
// sits at its right end; when that width is short the fields narrow, and when it is shorter
// still the captions go (the fields keep them as tooltips).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

RowLayout {
    id: bar
    property bool listening: false
    property string url: ""
    property string apiKey: ""
    property string error: ""

    // The width the header leaves for the bar. Given from outside, not read from the bar's own
    // width: captions shown or hidden while the row lays itself out would not be placed.
    property real room: width

    // Everything at full size; below it the bar is compact. From parts whose widths do not
    // depend on `compact`, so the switch cannot flip back and forth.
    readonly property real fullWidth: 12 + urlCaption.implicitWidth + 200 + urlCopy.implicitWidth
                                      + (keyField.visible ? keyCaption.implicitWidth + 160 + keyCopy.implicitWidth + 3 * spacing : 0)
                                      + 3 * spacing
    readonly property bool compact: room < fullWidth + spacing   // + the spacer's gap
    // The captions fit beside the narrowed fields (200 → 120 and 160 → 100 px).
    readonly property bool captions: room >= fullWidth - 140

    spacing: 8

    Item { visible: !bar.compact; Layout.fillWidth: true }
    Rectangle {
        width: 12; height: 12; radius: 6
        color: bar.listening ? "#2e9d57" : (bar.error ? "#d0473b" : "#c9a227")
    }
    Label {
        objectName: "gatewayStatus"
        visible: !bar.listening
        text: bar.error ? qsTr("Gateway failed to start") : qsTr("Starting the gateway…")
        color: bar.error ? "#d0473b" : palette.windowText
        elide: Text.ElideRight
        Layout.fillWidth: true
        Layout.maximumWidth: implicitWidth
    }
    // Captions and buttons keep their width; only the fields give way.
    Label { id: urlCaption; visible: bar.listening && bar.captions; text: qsTr("Base URL"); opacity: 0.75; Layout.minimumWidth: implicitWidth }
    TextField {
        id: urlField
        objectName: "baseUrlField"
        visible: bar.listening
        text: bar.url + "/v1"
        readOnly: true
        selectByMouse: true
        Layout.preferredWidth: 200
        Layout.minimumWidth: 120
        Layout.fillWidth: bar.compact
        // A narrowed field shows the address's start (the scheme and host), not its tail.
        onTextChanged: cursorPosition = 0
        ToolTip.text: qsTr("Base URL")
        ToolTip.visible: !bar.captions && hovered
    }
    Button {
        id: urlCopy
        visible: bar.listening
        Layout.minimumWidth: implicitWidth
        text: qsTr("Copy")
        Accessible.name: qsTr("Copy base URL")
        onClicked: { urlField.selectAll(); urlField.copy(); urlField.deselect() }
    }
    Label { id: keyCaption; visible: keyField.visible && bar.captions; text: qsTr("API key"); opacity: 0.75; Layout.minimumWidth: implicitWidth }
    TextField {
        id: keyField
        objectName: "apiKeyField"
        visible: bar.listening && bar.apiKey.length > 0
        text: bar.apiKey
        readOnly: true
        selectByMouse: true
        Layout.preferredWidth: 160
        Layout.minimumWidth: 100
        Layout.fillWidth: bar.compact
        onTextChanged: cursorPosition = 0
        ToolTip.text: qsTr("API key")
        ToolTip.visible: !bar.captions && hovered
    }
    Button {
        id: keyCopy
        visible: keyField.visible
        Layout.minimumWidth: implicitWidth
        text: qsTr("Copy")
        Accessible.name: qsTr("Copy API key")
        onClicked: { keyField.selectAll(); keyField.copy(); keyField.deselect() }
    }
}
