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

    property var keys: []              // GET /admin/keys
    property var models: []            // ids from GET /admin/models
    property var virtualModels: []     // ids from GET /admin/virtual-models
    readonly property var modelIds: models.concat(virtualModels)
    property string selectedName: ""
    readonly property var selectedKey: keys.find(k => k.name === selectedName) ?? null
    property string error: ""          // loading or creating failed
    property string loadError: ""      // the last loading failure (cleared from `error` by a good load)
    property string formError: ""      // a change to the selected key was refused
    property string formErrorField: ""
    // The secret of the key just created. Kept only here, until dismissed.
    property string secret: ""
    property string secretName: ""

    // Loads start once every property is set (`active` may be set before `api`).
    property bool completed: false
    onActiveChanged: if (active && completed) reload()
    Component.onCompleted: { completed = true; if (active) reload() }

    function ids(reply, field) {
        return Array.isArray(reply) ? reply.map(item => String(item[field])) : []
    }

    function reload() {
        api.admin("GET", "/admin/keys", undefined, (status, reply) => {
            if (!AdminReply.ok(status)) {
                error = loadError = AdminReply.errorText(status, reply)
                return
            }
            if (error === loadError)
                error = ""
            keys = Array.isArray(reply) ? reply : []
            if (!selectedKey && keys.length > 0)
                selectedName = keys[0].name
        })
        api.admin("GET", "/admin/models", undefined, (status, reply) => {
            if (AdminReply.ok(status))
                models = ids(reply, "id")
        })
        api.admin("GET", "/admin/virtual-models", undefined, (status, reply) => {
            if (AdminReply.ok(status))
                virtualModels = ids(reply, "id")
        })
    }

    function create() {
        const name = nameField.text.trim()
        if (name.length === 0 || /\s/.test(name)) {
            error = qsTr("A key needs a name without spaces.")
            return
        }
        api.admin("POST", "/admin/keys", { name: name }, (status, reply) => {
            error = AdminReply.errorText(status, reply)
            if (!AdminReply.ok(status))
                return
            secret = reply.secret ?? ""
            secretName = name
            nameField.text = ""
            selectedName = name
            reload()
        })
    }

    // One change to the selected key; on success the list (and the form) reload.
    function change(method, target, body) {
        const name = selectedName
        api.admin(method, target, body, (status, reply) => {
            formError = AdminReply.errorText(status, reply)
            formErrorField = AdminReply.errorField(reply)
            if (!AdminReply.ok(status))
                return
            if (method === "DELETE" && selectedName === name)
                selectedName = ""
            reload()
        })
    }
    function keyPath(name) { return "/admin/keys/" + AdminReply.idPath(name) }

    onSelectedNameChanged: { formError = ""; formErrorField = "" }

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
                error: editor.formError
                errorField: editor.formErrorField
                onSaveRequested: (patch) => editor.change("PATCH", editor.keyPath(editor.selectedName), patch)
                onResetBreakerRequested: editor.change("POST", editor.keyPath(editor.selectedName) + "/reset-breaker", undefined)
                onDeleteRequested: editor.change("DELETE", editor.keyPath(editor.selectedName), undefined)
            }
        }
    }
}
