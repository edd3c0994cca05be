// One workspace setting: its label, an input that fits the value's type (number or text field,
// switch for a boolean) and its unit. read() gives the value to send, undefined if not a number.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

RowLayout {
    id: row
    property string name: ""
    property var value
    property string label: ""
    property string unit: ""
    property bool marked: false        // the gateway named this setting as the problem
    signal accepted()

    readonly property bool isBoolean: typeof value === "boolean"
    readonly property bool isNumber: typeof value === "number"

    function read() {
        if (isBoolean)
            return toggle.checked
        const text = field.text.trim()
        if (value === null || value === undefined)
            return text.length === 0 ? value : (isFinite(Number(text)) ? Number(text) : text)
        if (!isNumber)
            return field.text
        const number = Number(text)
        return text.length > 0 && isFinite(number) ? number : undefined
    }

    spacing: 10
    Label {
        text: row.label
        color: row.marked ? "#d0473b" : palette.windowText
        elide: Text.ElideRight
        Layout.preferredWidth: 190
    }
    TextField {
        id: field
        objectName: row.isBoolean ? "" : "setting_" + row.name
        visible: !row.isBoolean
        text: row.isBoolean || row.value === null || row.value === undefined ? "" : String(row.value)
        inputMethodHints: row.isNumber ? Qt.ImhFormattedNumbersOnly : Qt.ImhNone
        horizontalAlignment: row.isNumber ? TextInput.AlignRight : TextInput.AlignLeft
        Layout.preferredWidth: 140
        onAccepted: row.accepted()
    }
    Switch {
        id: toggle
        objectName: row.isBoolean ? "setting_" + row.name : ""
        visible: row.isBoolean
        checked: row.value === true
        text: checked ? qsTr("On") : qsTr("Off")
        Layout.preferredWidth: 140
        Keys.onReturnPressed: row.accepted()
    }
    Label {
        text: row.unit
        opacity: 0.6
        elide: Text.ElideRight
        Layout.fillWidth: true
    }
}
