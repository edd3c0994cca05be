// The foot of an editor's form, outside its scrolling part so that it stays in view: why a change
// was refused (in red), Create/Save, and Delete with a confirmation step.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ColumnLayout {
    id: actions
    property bool creating: false
    property bool busy: false              // a change is on its way: Save and Delete wait for it
    property string error: ""
    property string what: ""               // "channel “x”", for the confirmation
    property string deleteNote: ""         // what deleting also does, if anything
    property bool confirming: false
    signal saveRequested()
    signal deleteRequested()

    spacing: 6
    Label {
        objectName: "formError"
        visible: actions.error.length > 0
        text: actions.error
        color: "#d0473b"
        wrapMode: Text.Wrap
        Layout.fillWidth: true
    }
    RowLayout {
        visible: !actions.confirming
        Layout.fillWidth: true
        spacing: 8
        Button {
            objectName: "saveButton"
            text: actions.creating ? qsTr("Create") : qsTr("Save")
            highlighted: true
            enabled: !actions.busy
            onClicked: actions.saveRequested()
            Keys.onReturnPressed: actions.saveRequested()
            Keys.onEnterPressed: actions.saveRequested()
        }
        Label { text: qsTr("Enter saves"); opacity: 0.6 }
        Item { Layout.fillWidth: true }
        Button {
            objectName: "deleteButton"
            visible: !actions.creating
            text: qsTr("Delete…")
            enabled: !actions.busy
            onClicked: actions.confirming = true
        }
    }
    RowLayout {
        visible: actions.confirming
        Layout.fillWidth: true
        spacing: 8
        Label {
            text: qsTr("Delete %1?").arg(actions.what) + (actions.deleteNote.length > 0 ? " " + actions.deleteNote : "")
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Button {
            objectName: "confirmDelete"
            text: qsTr("Delete")
            palette.buttonText: "#d0473b"
            onClicked: { actions.confirming = false; actions.deleteRequested() }
        }
        Button {
            objectName: "cancelDelete"
            text: qsTr("Cancel")
            onClicked: actions.confirming = false
        }
    }
}
