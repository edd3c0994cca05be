// The workspace: default model (last resort for chat requests), balance with top-up, the
// settings (drawn from what the gateway answers, see SettingsForm) and, in the desktop app, how
// it starts on this computer (DesktopStartForm).
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
    // The desktop app's start at login (see DesktopStartForm); null: not shown.
    property var desktop: null

    property var models: []            // ids from GET /admin/models
    property var virtualModels: []     // ids from GET /admin/virtual-models
    property var defaultModel: null    // id or null
    property var balance: ({})
    property var settings: ({})
    property string defaultModelError: ""
    property string defaultModelNotice: ""
    property string balanceError: ""
    property string balanceNotice: ""
    property string settingsError: ""
    property string settingsErrorField: ""
    property string loadError: ""

    // The default model's choices: none, then every model and virtual model (and the current
    // one even if it is neither any more).
    readonly property var choices: {
        const ids = models.concat(virtualModels)
        if (defaultModel && ids.indexOf(defaultModel) < 0)
            ids.push(defaultModel)
        return [{ text: qsTr("None"), value: null }].concat(ids.map(id => ({ text: id, value: id })))
    }

    // Loads start once every property is set (`active` may be set before `api`).
    property bool completed: false
    onActiveChanged: if (active && completed) reload()
    Component.onCompleted: { completed = true; if (active) reload() }

    function ids(reply) { return Array.isArray(reply) ? reply.map(item => String(item.id)) : [] }
    function loaded(status, reply) {
        if (!AdminReply.ok(status))
            loadError = AdminReply.errorText(status, reply)
        return AdminReply.ok(status)
    }

    function reload() {
        loadError = ""
        api.admin("GET", "/admin/models", undefined, (status, reply) => { if (loaded(status, reply)) models = ids(reply) })
        api.admin("GET", "/admin/virtual-models", undefined, (status, reply) => { if (loaded(status, reply)) virtualModels = ids(reply) })
        api.admin("GET", "/admin/default-model", undefined, (status, reply) => {
            if (loaded(status, reply))
                defaultModel = reply.default_model ?? null
        })
        api.admin("GET", "/admin/balance", undefined, (status, reply) => { if (loaded(status, reply)) balance = reply })
        api.admin("GET", "/admin/settings", undefined, (status, reply) => { if (loaded(status, reply)) settings = reply })
    }

    function setDefaultModel(id) {
        api.admin("PUT", "/admin/default-model", { default_model: id }, (status, reply) => {
            defaultModelError = AdminReply.errorText(status, reply)
            defaultModelNotice = AdminReply.ok(status) ? (id === null ? qsTr("No default model.") : qsTr("Default model set.")) : ""
            if (AdminReply.ok(status))
                reload()
        })
    }

    function topUp(amount, note) {
        const body = { amount: amount }
        if (note.length > 0)
            body.note = note
        api.admin("POST", "/admin/balance/top-up", body, (status, reply) => {
            balanceError = AdminReply.errorText(status, reply)
            balanceNotice = ""
            if (!AdminReply.ok(status))
                return
            balanceNotice = qsTr("Added %1 %2.").arg(amount).arg(balance.currency ?? "")
            balanceForm.clear()
            reload()
        })
    }

    function saveSettings(patch) {
        api.admin("PATCH", "/admin/settings", patch, (status, reply) => {
            settingsError = AdminReply.errorText(status, reply)
            settingsErrorField = AdminReply.errorField(reply)
            if (AdminReply.ok(status))
                reload()
        })
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 10
        Label {
            objectName: "workspaceLoadError"
            visible: editor.loadError.length > 0
            text: editor.loadError
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        // Two halves by anchors, like the failure lab.
        Item {
            Layout.fillWidth: true
            Layout.fillHeight: true

            ColumnLayout {
                id: leftHalf
                width: Math.floor((parent.width - 12) / 2)
                anchors.top: parent.top
                spacing: 12

                Frame {
                    padding: 12
                    Layout.fillWidth: true
                    ColumnLayout {
                        anchors.fill: parent
                        spacing: 8
                        Label { text: qsTr("Default model"); font.bold: true; font.pixelSize: 15 }
                        Label {
                            text: qsTr("Tried last for chat requests, after the request's own models and fallbacks.")
                            wrapMode: Text.Wrap
                            opacity: 0.7
                            Layout.fillWidth: true
                        }
                        RowLayout {
                            spacing: 8
                            Layout.fillWidth: true
                            ComboBox {
                                id: defaultBox
                                objectName: "defaultModelBox"
                                model: editor.choices
                                textRole: "text"
                                valueRole: "value"
                                currentIndex: Math.max(0, editor.choices.findIndex(c => c.value === editor.defaultModel))
                                Layout.fillWidth: true
                            }
                            Button {
                                objectName: "setDefaultModel"
                                text: qsTr("Set")
                                enabled: (editor.choices[defaultBox.currentIndex]?.value ?? null) !== editor.defaultModel
                                onClicked: editor.setDefaultModel(editor.choices[defaultBox.currentIndex].value)
                                Keys.onReturnPressed: clicked()
                            }
                        }
                        Label {
                            objectName: "defaultModelError"
                            visible: editor.defaultModelError.length > 0
                            text: editor.defaultModelError
                            color: "#d0473b"
                            wrapMode: Text.Wrap
                            Layout.fillWidth: true
                        }
                        Label {
                            visible: editor.defaultModelNotice.length > 0 && editor.defaultModelError.length === 0
                            text: editor.defaultModelNotice
                            opacity: 0.75
                        }
                    }
                }

                BalanceForm {
                    id: balanceForm
                    objectName: "balanceForm"
                    balance: editor.balance
                    error: editor.balanceError
                    notice: editor.balanceNotice
                    onTopUpRequested: (amount, note) => editor.topUp(amount, note)
                    Layout.fillWidth: true
                }

                DesktopStartForm {
                    objectName: "desktopStartForm"
                    visible: editor.desktop !== null
                    desktop: editor.desktop
                    Layout.fillWidth: true
                }
            }

            SettingsForm {
                objectName: "settingsForm"
                anchors.left: leftHalf.right
                anchors.leftMargin: 12
                anchors.right: parent.right
                anchors.top: parent.top
                anchors.bottom: parent.bottom
                settings: editor.settings
                error: editor.settingsError
                errorField: editor.settingsErrorField
                onSaveRequested: (patch) => editor.saveSettings(patch)
            }
        }
    }
}
