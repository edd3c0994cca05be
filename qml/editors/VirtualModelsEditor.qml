// Virtual models: an id standing for a primary model and ordered fallbacks. The list
// (GET /admin/virtual-models) and the selected one's form; create (POST), save (PUT), delete.
// The gateway refuses a virtual model that points at itself, at another virtual model or at an
// unknown model; its reason is shown in the form.
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
    readonly property alias virtualModels: controller.items
    property var modelIds: []
    readonly property alias selectedId: controller.selectedId
    readonly property alias creating: controller.creating
    readonly property alias selected: controller.selected

    EditorController {
        id: controller
        api: editor.api
        listPath: "/admin/virtual-models"
        active: editor.active
        onReloading: editor.loadModelIds()
    }

    function loadModelIds() {
        api.admin("GET", "/admin/models", undefined, (status, reply) => {
            if (AdminReply.ok(status) && Array.isArray(reply))
                modelIds = reply.map(m => String(m.id))
        })
    }
    function reload() { controller.reload() }
    function select(id) { controller.select(id) }
    function startNew() {
        controller.startNew()
        form.load()
    }
    function save(body) { controller.save(body) }

    ColumnLayout {
        anchors.fill: parent
        spacing: 10
        Label {
            objectName: "virtualModelsError"
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
                title: qsTr("Virtual models")
                newText: qsTr("New virtual model")
                emptyText: qsTr("No virtual models yet")
                items: editor.virtualModels
                selectedId: editor.selectedId
                summary: v => [v.primary].concat(v.fallbacks ?? []).join(" → ")
                onSelectRequested: (id) => editor.select(id)
                onNewRequested: editor.startNew()
            }
            VirtualModelForm {
                id: form
                objectName: "virtualModelForm"
                anchors.left: list.right
                anchors.leftMargin: 12
                anchors.right: parent.right
                anchors.top: parent.top
                anchors.bottom: parent.bottom
                visible: editor.creating || editor.selected !== null
                creating: editor.creating
                entry: editor.selected
                modelIds: editor.modelIds
                busy: controller.busy
                error: controller.formError
                errorField: controller.formErrorField
                onSaveRequested: (body) => editor.save(body)
                onDeleteRequested: controller.remove()
            }
        }
    }
}
