// One virtual model: its id, the primary model and the fallbacks tried after it, in order.
// saveRequested gets {id, primary, fallbacks}. Models are offered from the list, and may be typed.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Frame {
    id: form
    property var entry: null               // an entry of GET /admin/virtual-models; null with `creating`
    property bool creating: false
    property bool busy: false              // a change is on its way: Save waits
    property var modelIds: []
    property string error: ""
    property string errorField: ""         // e.g. "virtual_models[0].primary"
    signal saveRequested(var body)
    signal deleteRequested()

    property string primary: ""
    property string localError: ""
    property string localField: ""
    readonly property string shownError: localError.length > 0 ? localError : error
    readonly property string field: {
        if (localError.length > 0)
            return localField
        const m = /^virtual_models\[\d+\]\.(.*)$/.exec(errorField)
        return m ? m[1] : (/^[a-z_]+\[\d+\]/.test(errorField) ? "" : errorField)
    }
    function marks(name) { return field === name || field.startsWith(name + ".") || field.startsWith(name + "[") }

    onEntryChanged: load()
    onCreatingChanged: load()

    function load() {
        const v = creating ? null : entry
        localError = ""
        localField = ""
        actions.confirming = false
        idField.text = v ? v.id : ""
        primary = v ? String(v.primary ?? "") : ""
        fallbacks.items = v && Array.isArray(v.fallbacks) ? v.fallbacks.slice() : []
    }
    function refuse(name, message) {
        localField = name
        localError = message
    }
    function save() {
        localError = ""
        localField = ""
        const id = idField.text.trim()
        if (id.length === 0 || /[\s\x00-\x1f]/.test(id))
            return refuse("id", qsTr("Id: required, without spaces, e.g. team/coder."))
        const chosen = primary.trim()
        if (chosen.length === 0)
            return refuse("primary", qsTr("Choose the primary model."))
        form.saveRequested({ id: id, primary: chosen, fallbacks: fallbacks.items.slice() })
    }

    component Name: Label {
        property string about
        color: form.marks(about) ? "#d0473b" : palette.windowText
    }

    Keys.onReturnPressed: save()
    Keys.onEnterPressed: save()

    padding: 12
    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        Label {
            text: form.creating ? qsTr("New virtual model") : (form.entry ? form.entry.id : "")
            font.bold: true
            font.pixelSize: 15
            elide: Text.ElideRight
            Layout.fillWidth: true
        }
        Label {
            text: qsTr("Clients ask for the virtual model's id; the gateway tries the primary model, then each fallback in order.")
            opacity: 0.65
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }

        ScrollView {
            id: scroll
            clip: true
            contentWidth: availableWidth
            Layout.fillWidth: true
            Layout.fillHeight: true

            GridLayout {
                width: Math.min(scroll.availableWidth, 560)
                columns: 2
                columnSpacing: 10
                rowSpacing: 8

                Name { text: qsTr("Id"); about: "id" }
                TextField {
                    id: idField
                    objectName: "virtualModelId"
                    enabled: form.creating           // renaming is deleting and creating
                    placeholderText: qsTr("e.g. team/coder")
                    Layout.fillWidth: true
                }
                Name { text: qsTr("Primary"); about: "primary" }
                ModelIdBox {
                    objectName: "primaryModel"
                    value: form.primary
                    choices: form.modelIds
                    onEdited: (value) => form.primary = value
                    onSubmitted: form.save()
                    Layout.fillWidth: true
                }
                Name { text: qsTr("Fallbacks"); about: "fallbacks"; Layout.alignment: Qt.AlignTop; topPadding: 6 }
                OrderedListField {
                    id: fallbacks
                    objectName: "fallbacks"
                    choices: form.modelIds
                    excluded: [form.primary]
                    marked: form.marks("fallbacks")
                    emptyText: qsTr("No fallbacks: only the primary model is tried")
                    Layout.fillWidth: true
                }
            }
        }

        EditorActions {
            id: actions
            creating: form.creating
            busy: form.busy
            error: form.shownError
            what: qsTr("virtual model “%1”").arg(form.entry ? form.entry.id : "")
            deleteNote: qsTr("Clients asking for it are refused.")
            Layout.fillWidth: true
            onSaveRequested: form.save()
            onDeleteRequested: form.deleteRequested()
        }
    }
}
