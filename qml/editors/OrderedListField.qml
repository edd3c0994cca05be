// An ordered list of ids (a virtual model's fallbacks): add one from `choices` (or typed), remove,
// move up and down. `items` is replaced, never changed in place, so bindings to it see each change.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ColumnLayout {
    id: field
    property var items: []
    property var choices: []
    property var excluded: []              // ids not offered (already used elsewhere)
    property string emptyText: qsTr("None")
    property bool marked: false            // the gateway named this field as the problem
    signal edited()

    readonly property var offered: choices.filter(id => items.indexOf(id) < 0 && excluded.indexOf(id) < 0)

    function move(index, by) {
        const to = index + by
        if (index < 0 || index >= items.length || to < 0 || to >= items.length)
            return
        const next = items.slice()
        next.splice(to, 0, next.splice(index, 1)[0])
        items = next
        edited()
    }
    function remove(index) {
        const next = items.slice()
        next.splice(index, 1)
        items = next
        edited()
    }
    function add(id) {
        const text = String(id).trim()
        if (text.length === 0 || items.indexOf(text) >= 0)
            return
        items = items.concat([text])
        addBox.editText = ""
        addBox.currentIndex = -1
        edited()
    }

    spacing: 4
    Label {
        visible: field.items.length === 0
        text: field.emptyText
        opacity: 0.6
    }
    Repeater {
        model: field.items
        delegate: RowLayout {
            id: entry
            required property string modelData
            required property int index
            spacing: 4
            Layout.fillWidth: true
            Label { text: (entry.index + 1) + "."; opacity: 0.7; Layout.preferredWidth: 22 }
            Label {
                objectName: "entry_" + entry.index
                text: entry.modelData
                color: field.marked ? "#d0473b" : field.palette.windowText
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
            ToolButton {
                objectName: "moveUp_" + entry.index
                text: "↑"
                enabled: entry.index > 0
                ToolTip.text: qsTr("Move up")
                ToolTip.visible: hovered
                onClicked: field.move(entry.index, -1)
            }
            ToolButton {
                objectName: "moveDown_" + entry.index
                text: "↓"
                enabled: entry.index < field.items.length - 1
                ToolTip.text: qsTr("Move down")
                ToolTip.visible: hovered
                onClicked: field.move(entry.index, 1)
            }
            ToolButton {
                objectName: "remove_" + entry.index
                text: "×"
                ToolTip.text: qsTr("Remove")
                ToolTip.visible: hovered
                onClicked: field.remove(entry.index)
            }
        }
    }
    RowLayout {
        spacing: 6
        Layout.fillWidth: true
        ComboBox {
            id: addBox
            objectName: "addChoice"
            model: field.offered
            editable: true
            currentIndex: -1
            Layout.fillWidth: true
            Layout.maximumWidth: 360
            // Enter here adds the entry rather than saving the form.
            Keys.onReturnPressed: field.add(editText)
            Keys.onEnterPressed: field.add(editText)
        }
        Button {
            objectName: "addEntry"
            text: qsTr("Add")
            enabled: addBox.editText.trim().length > 0
            onClicked: field.add(addBox.editText)
        }
    }
}
