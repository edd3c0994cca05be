// Import / export of the whole configuration as YAML (the file `switchyard-gateway --config`
// reads). Export: GET /admin/config?format=yaml, optionally with secrets; import: a file or pasted
// text, applied with PUT /admin/config — the gateway takes it as a whole or refuses it with the
// reason and the field.
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
    // File dialogs and file IO: chooseSaveFile(title, name, filter), chooseOpenFile(title, filter)
    // → path or ""; saveText(path, text) → error or ""; loadText(path) → {text, error}. A
    // Switchyard.Models TextFiles made on first use unless one is given (tests give a double).
    property var files: null

    property bool includeSecrets: false
    property string exportText: ""
    property string exportError: ""
    property string exportNotice: ""
    property string importError: ""
    property string importField: ""
    property string importNotice: ""
    readonly property string fileFilter: qsTr("YAML or JSON (*.yaml *.yml *.json);;All files (*)")

    // Loads start once every property is set (`active` may be set before `api`).
    property bool completed: false
    onActiveChanged: if (active && completed) refreshExport()
    Component.onCompleted: { completed = true; if (active) refreshExport() }
    onIncludeSecretsChanged: if (active && completed) refreshExport()

    function textFiles() {
        // Made from text so that the dashboard module does not need Switchyard.Models to load.
        if (!files)
            files = Qt.createQmlObject("import Switchyard.Models\nTextFiles {}", editor, "TextFiles")
        return files
    }

    function refreshExport() {
        const target = "/admin/config?format=yaml" + (includeSecrets ? "&secrets=1" : "")
        api.admin("GET", target, undefined, (status, reply) => {
            exportError = AdminReply.errorText(status, reply)
            exportText = AdminReply.ok(status) ? String(reply) : ""
        })
    }

    function saveExport() {
        exportNotice = ""
        const path = textFiles().chooseSaveFile(qsTr("Save the configuration"), "switchyard.yaml", fileFilter)
        if (!path)
            return
        exportError = textFiles().saveText(path, exportText)
        if (!exportError)
            exportNotice = qsTr("Saved to %1").arg(path)
    }

    function openImport() {
        importNotice = ""
        const path = textFiles().chooseOpenFile(qsTr("Open a configuration"), fileFilter)
        if (!path)
            return
        const loaded = textFiles().loadText(path)
        importError = loaded.error
        importField = ""
        if (!loaded.error) {
            importPane.text = loaded.text
            importNotice = qsTr("Loaded %1: check it, then Apply.").arg(path)
        }
    }

    function applyImport() {
        importNotice = ""
        if (importPane.text.trim().length === 0) {
            importError = qsTr("Paste a configuration or open a file first.")
            return
        }
        api.admin("PUT", "/admin/config", importPane.text, (status, reply) => {
            importError = AdminReply.errorText(status, reply)
            importField = AdminReply.errorField(reply)
            if (!AdminReply.ok(status))
                return
            importNotice = qsTr("Applied: the gateway runs this configuration now.")
            refreshExport()
        })
    }

    // Two halves by anchors, like the failure lab.
    Item {
        anchors.fill: parent

        ConfigTextPane {
            id: exportPane
            objectName: "exportPane"
            width: Math.floor((parent.width - 12) / 2)
            anchors.top: parent.top
            anchors.bottom: parent.bottom
            title: qsTr("Export")
            text: editor.exportText
            readOnly: true
            error: editor.exportError
            notice: editor.exportNotice
            textObjectName: "exportText"

            CheckBox {
                objectName: "includeSecrets"
                text: qsTr("Include secrets")
                checked: editor.includeSecrets
                onToggled: editor.includeSecrets = checked
            }
            Button {
                objectName: "refreshExport"
                text: qsTr("Refresh")
                onClicked: editor.refreshExport()
            }
            Button {
                objectName: "copyExport"
                text: qsTr("Copy")
                enabled: editor.exportText.length > 0
                onClicked: exportPane.copyAll()
            }
            Button {
                objectName: "saveExport"
                text: qsTr("Save to file…")
                enabled: editor.exportText.length > 0
                onClicked: editor.saveExport()
            }
            warning: editor.includeSecrets
                     ? qsTr("This export holds the channels' API keys and the admin token in plain text. Keep the file private.")
                     : qsTr("Without secrets: channel credentials and the admin token are left out; applying this text elsewhere needs them added back.")
            warningIsAlarm: editor.includeSecrets
        }

        ConfigTextPane {
            id: importPane
            objectName: "importPane"
            anchors.left: exportPane.right
            anchors.leftMargin: 12
            anchors.right: parent.right
            anchors.top: parent.top
            anchors.bottom: parent.bottom
            title: qsTr("Import")
            readOnly: false
            placeholder: qsTr("Paste a configuration (YAML or JSON) here, or open a file")
            error: editor.importError.length > 0 && editor.importField.length > 0
                   ? qsTr("%1\nField: %2").arg(editor.importError).arg(editor.importField)
                   : editor.importError
            notice: editor.importNotice
            textObjectName: "importText"
            onSubmitted: editor.applyImport()

            Button {
                objectName: "openImport"
                text: qsTr("Open file…")
                onClicked: editor.openImport()
            }
            Button {
                objectName: "applyImport"
                text: qsTr("Apply")
                highlighted: true
                enabled: importPane.text.trim().length > 0
                onClicked: editor.applyImport()
                Keys.onReturnPressed: editor.applyImport()
            }
            warning: qsTr("Apply replaces the whole configuration at once. Ctrl+Enter applies.")
        }
    }
}
