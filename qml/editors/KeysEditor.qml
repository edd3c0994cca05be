// Gateway keys: the list with each key's limits and breaker state; create a key (the gateway
// makes its secret and answers with it this once: it is shown until dismissed, with a copy
// button); edit limits, allowed models and enabled; reset the breaker; delete.
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

    // The list, the selection, create / save / delete and the refusal: EditorController.
    readonly property alias keys: controller.items
    property var models: []            // ids from GET /admin/models
    property var virtualModels: []     // ids from GET /admin/virtual-models
    readonly property var modelIds: models.concat(virtualModels)
    property alias selectedName: controller.selectedId
    readonly property alias selectedKey: controller.selected
    property string localError: ""     // a name refused before it was sent
    readonly property string error: localError.length > 0 ? localError : controller.error
    // The secret of the key just created. Kept only here, until dismissed.
    property string secret: ""
    property string secretName: ""

    EditorController {
        id: controller
        api: editor.api
        listPath: "/admin/keys"
        idField: "name"
        updateMethod: "PATCH"
        active: editor.active
        onReloading: editor.loadModelIds()
        onSaved: (method, reply) => {
            if (method === "POST") {
                editor.secret = reply.secret ?? ""
                editor.secretName = controller.selectedId
                nameField.text = ""
            }
        }
    }

    function ids(reply, field) {
        return Array.isArray(reply) ? reply.map(item => String(item[field])) : []
    }
    function loadModelIds() {
        api.admin("GET", "/admin/models", undefined, (status, reply) => {
            if (AdminReply.ok(status))
                models = ids(reply, "id")
        })
        api.admin("GET", "/admin/virtual-models", undefined, (status, reply) => {
            if (AdminReply.ok(status))
                virtualModels = ids(reply, "id")
        })
    }
    function reload() { controller.reload() }

    function create() {
        const name = nameField.text.trim()
        localError = name.length === 0 || /\s/.test(name) ? qsTr("A key needs a name without spaces.") : ""
        if (localError.length === 0)
            controller.create({ name: name })
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 10

        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            Label { text: qsTr("Gateway keys"); font.bold: true; font.pixelSize: 15; Layout.fillWidth: true }
            TextField {
                id: nameField
                objectName: "newKeyName"
                placeholderText: qsTr("New key name, e.g. ide")
                Layout.preferredWidth: 240
                onAccepted: editor.create()
            }
            Button {
                objectName: "createKey"
                text: qsTr("Create key")
                enabled: nameField.text.trim().length > 0
                onClicked: editor.create()
                Keys.onReturnPressed: editor.create()
            }
        }
        Label {
            objectName: "keysError"
            visible: editor.error.length > 0
            text: editor.error
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }

        KeySecretNotice {
            objectName: "secretNotice"
            visible: editor.secret.length > 0
            keyName: editor.secretName
            secret: editor.secret
            onDismissed: { editor.secret = ""; editor.secretName = "" }
            Layout.fillWidth: true
        }

        // List and form side by side, by anchors (a RowLayout would size the list by its contents).
        Item {
            Layout.fillWidth: true
            Layout.fillHeight: true

            Frame {
                id: listFrame
                width: Math.floor(parent.width * 0.42)
                anchors.top: parent.top
                anchors.bottom: parent.bottom
                padding: 4
                Rectangle {
                    anchors.fill: parent
                    anchors.margins: -2
                    color: "transparent"
                    border.color: palette.highlight
                    visible: list.activeFocus
                }
                ListView {
                    id: list
                    objectName: "keyList"
                    anchors.fill: parent
                    clip: true
                    model: editor.keys
                    activeFocusOnTab: true
                    // The selection is the key's name, so that it survives reloads; arrows move it.
                    readonly property int selectedIndex: editor.keys.findIndex(k => k.name === editor.selectedName)
                    onSelectedIndexChanged: if (selectedIndex >= 0) positionViewAtIndex(selectedIndex, ListView.Contain)
                    function step(by) {
                        const next = Math.max(0, Math.min(editor.keys.length - 1, selectedIndex + by))
                        if (next >= 0 && next < editor.keys.length)
                            editor.selectedName = editor.keys[next].name
                    }
                    Keys.onUpPressed: step(-1)
                    Keys.onDownPressed: step(1)
                    ScrollBar.vertical: ScrollBar {}
                    delegate: KeyRow {
                        width: ListView.view.width
                        highlighted: modelData.name === editor.selectedName
                        focusPolicy: Qt.NoFocus
                        onClicked: editor.selectedName = modelData.name
                    }
                    Label {
                        anchors.centerIn: parent
                        visible: list.count === 0
                        text: qsTr("No keys yet: create one above")
                        opacity: 0.6
                    }
                }
            }

            KeyForm {
                objectName: "keyForm"
                anchors.left: listFrame.right
                anchors.leftMargin: 12
                anchors.right: parent.right
                anchors.top: parent.top
                anchors.bottom: parent.bottom
                visible: editor.selectedKey !== null
                key: editor.selectedKey
                modelIds: editor.modelIds
                error: controller.formError
                errorField: controller.formErrorField
                onSaveRequested: (patch) => controller.save(patch)
                onResetBreakerRequested: controller.act("POST", "/reset-breaker", undefined)
                onDeleteRequested: controller.remove()
            }
        }
    }
}
