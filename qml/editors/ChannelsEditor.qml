// Channels: the list (GET /admin/channels; credentials appear only as `credential_count`) and the
// selected channel's form; create (POST), save (PUT: the whole channel; without `credentials` the
// stored ones stay), delete. The gateway validates each change as a whole; a refusal is shown in
// the form with its reason and the field it names is marked.
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

    property var channels: []
    property var modelIds: []
    property string selectedId: ""
    property bool creating: false
    readonly property var selected: channels.find(c => c.id === selectedId) ?? null
    property string error: ""              // loading failed
    property string formError: ""
    property string formErrorField: ""

    // Load once the editor is complete (its `api` is set) and then each time it is shown again.
    property bool completed: false
    onActiveChanged: if (active && completed) reload()
    Component.onCompleted: { completed = true; if (active) reload() }

    function reload() {
        api.admin("GET", "/admin/channels", undefined, (status, reply) => {
            error = AdminReply.errorText(status, reply)
            if (!AdminReply.ok(status))
                return
            channels = Array.isArray(reply) ? reply : []
            if (!creating && !selected && channels.length > 0)
                selectedId = channels[0].id
        })
        api.admin("GET", "/admin/models", undefined, (status, reply) => {
            if (AdminReply.ok(status) && Array.isArray(reply))
                modelIds = reply.map(m => String(m.id))
        })
    }
    function target(id) { return "/admin/channels/" + AdminReply.idPath(id) }

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
            change("POST", "/admin/channels", body, body.id)
        else
            change("PUT", target(selectedId), body, selectedId)
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 10
        Label {
            objectName: "channelsError"
            visible: editor.error.length > 0
            text: editor.error
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        // List and form side by side, by anchors (a RowLayout would size the list by its contents).
        Item {
            Layout.fillWidth: true
            Layout.fillHeight: true
            EditorItemList {
                id: list
                width: Math.floor(parent.width * 0.3)
                anchors.top: parent.top
                anchors.bottom: parent.bottom
                title: qsTr("Channels")
                newText: qsTr("New channel")
                emptyText: qsTr("No channels yet")
                items: editor.channels
                selectedId: editor.selectedId
                summary: c => [c.provider, c.format,
                               c.max_concurrent > 0 ? qsTr("%1 at once").arg(c.max_concurrent) : qsTr("unlimited"),
                               (c.models ?? []).length === 1 ? qsTr("1 model") : qsTr("%1 models").arg((c.models ?? []).length),
                               c.enabled === false ? qsTr("disabled") : ""].filter(s => s).join(" · ")
                onSelectRequested: (id) => editor.select(id)
                onNewRequested: editor.startNew()
            }
            ChannelForm {
                id: form
                objectName: "channelForm"
                anchors.left: list.right
                anchors.leftMargin: 12
                anchors.right: parent.right
                anchors.top: parent.top
                anchors.bottom: parent.bottom
                visible: editor.creating || editor.selected !== null
                creating: editor.creating
                channel: editor.selected
                modelIds: editor.modelIds
                error: editor.formError
                errorField: editor.formErrorField
                onSaveRequested: (body) => editor.save(body)
                onDeleteRequested: editor.change("DELETE", editor.target(editor.selectedId), undefined, "")
            }
        }
    }
}
