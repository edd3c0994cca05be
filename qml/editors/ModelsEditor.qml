// ModelsEditor: (being written).
import QtQuick
import QtQuick.Controls

Pane {
    id: editor
    required property var api
    // True while the editor is shown: it (re)loads its data from the API when this turns true.
    property bool active: false
    Label { text: "ModelsEditor" }
}
