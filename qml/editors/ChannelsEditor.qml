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

    // The list, the selection, save / delete and the refusal: EditorController.
    readonly property alias channels: controller.items
    property var modelIds: []
    readonly property alias selectedId: controller.selectedId
    readonly property alias creating: controller.creating
    readonly property alias selected: controller.selected

    EditorController {
        id: controller
        api: editor.api
        listPath: "/admin/channels"
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
            objectName: "channelsError"
            visible: controller.error.length > 0
            text: controller.error
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
                busy: controller.busy
                error: controller.formError
                errorField: controller.formErrorField
                onSaveRequested: (body) => editor.save(body)
                onDeleteRequested: controller.remove()
            }
        }
    }
}
