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

    property var models: []
    property string selectedId: ""
    property bool creating: false
    readonly property var selected: models.find(m => m.id === selectedId) ?? null
    property string error: ""
    property string formError: ""
    property string formErrorField: ""

    // Load once the editor is complete (its `api` is set) and then each time it is shown again.
    property bool completed: false
    onActiveChanged: if (active && completed) reload()
    Component.onCompleted: { completed = true; if (active) reload() }

    function reload() {
        api.admin("GET", "/admin/models", undefined, (status, reply) => {
            error = AdminReply.errorText(status, reply)
            if (!AdminReply.ok(status))
                return
            models = Array.isArray(reply) ? reply : []
            if (!creating && !selected && models.length > 0)
                selectedId = models[0].id
        })
    }
    function target(id) { return "/admin/models/" + AdminReply.idPath(id) }

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
            change("POST", "/admin/models", body, body.id)
        else
            change("PUT", target(selectedId), body, selectedId)
    }
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
                error: editor.formError
                errorField: editor.formErrorField
                onSaveRequested: (body) => editor.save(body)
                onDeleteRequested: editor.change("DELETE", editor.target(editor.selectedId), undefined, "")
            }
        }
    }
}
