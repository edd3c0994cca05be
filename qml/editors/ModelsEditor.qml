// Models: the list (GET /admin/models, implicit ones included) and the selected model's form;
// create (POST), save (PUT: the whole model), delete. Model ids contain '/', kept as is in the
// target (AdminReply.idPath). A refusal is shown in the form with its reason.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard
import "AdminReply.js" as AdminReply

Pane {
    id: editor
    required property var api
    // True while the editor is shown: it (re)loads its data from the API when this turns true.
    property bool active: false

    // The list, the selection, save / delete and the refusal: EditorController.
    readonly property alias models: controller.items
    readonly property alias selectedId: controller.selectedId
    readonly property alias creating: controller.creating
    readonly property alias selected: controller.selected

    EditorController {
        id: controller
        api: editor.api
        listPath: "/admin/models"
        active: editor.active
    }

    function reload() { controller.reload() }
    function select(id) { controller.select(id) }
    function startNew() {
        controller.startNew()
        form.load()
    }
    function save(body) { controller.save(body) }
    function summary(m) {
        const parts = [(m.capabilities ?? []).join(", ")]
        if (m.context_length > 0)
            parts.push(qsTr("%1k context").arg(Math.round(m.context_length / 1024)))
        if (m.deprecated)
            parts.push(qsTr("sunset %1").arg(m.deprecated))
        if (m.free)
            parts.push(qsTr("free"))
        if (m.enabled === false)
            parts.push(qsTr("disabled"))
        return parts.join(" · ")
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 10
        Label {
            objectName: "modelsError"
            visible: controller.error.length > 0
            text: controller.error
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Item {
            Layout.fillWidth: true
            Layout.fillHeight: true
            EditorItemList {
                id: list
                width: Math.floor(parent.width * 0.36)
                anchors.top: parent.top
                anchors.bottom: parent.bottom
                title: qsTr("Models")
                newText: qsTr("New model")
                emptyText: qsTr("No models yet")
                items: editor.models
                selectedId: editor.selectedId
                summary: m => editor.summary(m)
                onSelectRequested: (id) => editor.select(id)
                onNewRequested: editor.startNew()
            }
            ModelForm {
                id: form
                objectName: "modelForm"
                anchors.left: list.right
                anchors.leftMargin: 12
                anchors.right: parent.right
                anchors.top: parent.top
                anchors.bottom: parent.bottom
                visible: editor.creating || editor.selected !== null
                creating: editor.creating
                entry: editor.selected
                busy: controller.busy
                error: controller.formError
                errorField: controller.formErrorField
                onSaveRequested: (body) => editor.save(body)
                onDeleteRequested: controller.remove()
            }
        }
    }
}
