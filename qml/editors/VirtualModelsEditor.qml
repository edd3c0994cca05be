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

    property var virtualModels: []
    property var modelIds: []
    property string selectedId: ""
    property bool creating: false
    readonly property var selected: virtualModels.find(v => v.id === selectedId) ?? null
    property string error: ""
    property string formError: ""
    property string formErrorField: ""

    // Load once the editor is complete (its `api` is set) and then each time it is shown again.
    property bool completed: false
    onActiveChanged: if (active && completed) reload()
    Component.onCompleted: { completed = true; if (active) reload() }

    function reload() {
        api.admin("GET", "/admin/virtual-models", undefined, (status, reply) => {
            error = AdminReply.errorText(status, reply)
            if (!AdminReply.ok(status))
                return
            virtualModels = Array.isArray(reply) ? reply : []
            if (!creating && !selected && virtualModels.length > 0)
                selectedId = virtualModels[0].id
        })
        api.admin("GET", "/admin/models", undefined, (status, reply) => {
            if (AdminReply.ok(status) && Array.isArray(reply))
                modelIds = reply.map(m => String(m.id))
        })
    }
    function target(id) { return "/admin/virtual-models/" + AdminReply.idPath(id) }

    function select(id) {
        creating = false
        selectedId = id
        formError = ""
        formErrorField = ""
    }
    function startNew() {
        select("")
        creating = true
        form.load()
    }
    function change(method, path, body, nextId) {
        api.admin(method, path, body, (status, reply) => {
            formError = AdminReply.errorText(status, reply)
            formErrorField = AdminReply.errorField(reply)
            if (!AdminReply.ok(status))
                return
            creating = false
            selectedId = nextId
            reload()
        })
    }
    function save(body) {
        if (creating)
            change("POST", "/admin/virtual-models", body, body.id)
        else
            change("PUT", target(selectedId), body, selectedId)
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 10
        Label {
            objectName: "virtualModelsError"
            visible: editor.error.length > 0
            text: editor.error
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
                error: editor.formError
                errorField: editor.formErrorField
                onSaveRequested: (body) => editor.save(body)
                onDeleteRequested: editor.change("DELETE", editor.target(editor.selectedId), undefined, "")
            }
        }
    }
}
