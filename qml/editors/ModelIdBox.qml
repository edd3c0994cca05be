// A model id, chosen from `choices` or typed (an id the list does not have yet). `value` is what
// is shown; only the user's choosing or typing reports a change (edited), never a new list of
// choices arriving after the value.
import QtQuick
import QtQuick.Controls

ComboBox {
    id: box
    property string value
    property var choices: []
    signal edited(string value)
    // Enter in the box (which keeps the key to itself), once the ComboBox is done with it.
    signal submitted()

    function sync() {
        // While typing, the text field is ahead of editText: nothing to do (setting it then loops).
        if (editText === value || contentItem.text === value)
            return
        currentIndex = find(value)
        editText = value
    }

    editable: true
    model: choices
    onValueChanged: sync()
    onChoicesChanged: Qt.callLater(sync)   // once the ComboBox has taken the new list
    Component.onCompleted: sync()
    onActivated: (index) => edited(textAt(index))
    onAccepted: Qt.callLater(submitted)
    Connections {
        target: box.contentItem
        function onTextEdited() { box.edited(box.contentItem.text) }
    }
}
