import QtQuick
import QtQuick.Controls
import QtTest
import Switchyard.Dashboard

Item {
    id: root
    width: 1100; height: 760

    readonly property string exported: "listen: 127.0.0.1:8080\ncurrency: USD\nkeys: []\n"
    readonly property string exportedWithSecrets: "listen: 127.0.0.1:8080\nadmin_token: sya-test\ncurrency: USD\n"

    // The admin API double: records every call and answers from `answers`
    // ("METHOD target" → [status, reply] or a function(body) returning one).
    QtObject {
        id: api
        property var calls: []
        property var answers: ({})
        function admin(method, target, body, callback) {
            calls.push({ method: method, target: target, body: body })
            let answer = answers[method + " " + target]
            if (typeof answer === "function")
                answer = answer(body)
            if (!answer)
                answer = [404, { error: { message: "no answer for " + method + " " + target, param: null } }]
            callback(answer[0], answer[1])
        }
        function callsTo(method, target) { return calls.filter(c => c.method === method && c.target === target) }
    }

    // TextFiles' double: the dialogs answer `chosenPath`; files live in `stored`.
    QtObject {
        id: files
        property string chosenPath: ""
        property var stored: ({})
        property var dialogs: []
        function chooseSaveFile(title, name, filter) { dialogs.push("save " + name); return chosenPath }
        function chooseOpenFile(title, filter) { dialogs.push("open"); return chosenPath }
        function saveText(path, text) {
            if (path.indexOf("/readonly/") >= 0)
                return "Cannot write " + path + ": Permission denied"
            stored[path] = text
            return ""
        }
        function loadText(path) {
            return path in stored ? { text: stored[path], error: "" } : { text: "", error: "Cannot read " + path + ": No such file or directory" }
        }
    }

    Component { id: editorComponent; ImportExportEditor { width: root.width; height: root.height } }
    TextArea { id: scratch; y: root.height - 80; width: 300; height: 80 }

    TestCase {
        name: "ImportExportEditor"
        when: windowShown

        function init() {
            api.calls = []
            api.answers = {
                "GET /admin/config?format=yaml": [200, root.exported],
                "GET /admin/config?format=yaml&secrets=1": [200, root.exportedWithSecrets]
            }
            files.chosenPath = ""
            files.stored = {}
            files.dialogs = []
        }
        function open() {
            const editor = createTemporaryObject(editorComponent, root, { api: api, files: files, active: true })
            verify(editor)
            waitForRendering(editor)
            return editor
        }
        function inPane(editor, pane, name) { return findChild(findChild(editor, pane), name) }

        function test_exportsWhenShownAndWithSecretsOnRequest() {
            const editor = open()
            compare(api.callsTo("GET", "/admin/config?format=yaml").length, 1)
            const text = findChild(editor, "exportText")
            compare(text.text, root.exported)
            verify(text.readOnly)
            const warning = inPane(editor, "exportPane", "warning")
            verify(warning.text.indexOf("left out") >= 0)

            mouseClick(findChild(editor, "includeSecrets"))
            compare(api.callsTo("GET", "/admin/config?format=yaml&secrets=1").length, 1)
            compare(text.text, root.exportedWithSecrets)
            verify(warning.text.indexOf("plain text") >= 0)
            compare(warning.color, "#d0473b")
        }

        function test_copyTheExport() {
            const editor = open()
            mouseClick(findChild(editor, "copyExport"))
            scratch.text = ""
            scratch.paste()
            compare(scratch.text, root.exported)
        }

        function test_saveToFile() {
            const editor = open()
            mouseClick(findChild(editor, "saveExport"))                // cancelled dialog: nothing saved
            compare(files.dialogs.length, 1)
            compare(Object.keys(files.stored).length, 0)

            files.chosenPath = "/home/user/switchyard.yaml"
            mouseClick(findChild(editor, "saveExport"))
            compare(files.stored["/home/user/switchyard.yaml"], root.exported)
            verify(inPane(editor, "exportPane", "notice").text.indexOf("/home/user/switchyard.yaml") >= 0)

            files.chosenPath = "/readonly/switchyard.yaml"
            mouseClick(findChild(editor, "saveExport"))
            compare(inPane(editor, "exportPane", "error").text, "Cannot write /readonly/switchyard.yaml: Permission denied")
        }

        function test_openFileThenApply() {
            api.answers["PUT /admin/config"] = [200, { status: "applied" }]
            files.stored["/home/user/new.yaml"] = "currency: EUR\n"
            files.chosenPath = "/home/user/new.yaml"
            const editor = open()
            mouseClick(findChild(editor, "openImport"))
            compare(findChild(editor, "importText").text, "currency: EUR\n")
            compare(api.callsTo("PUT", "/admin/config").length, 0)    // nothing applied before Apply

            mouseClick(findChild(editor, "applyImport"))
            const puts = api.callsTo("PUT", "/admin/config")
            compare(puts.length, 1)
            compare(puts[0].body, "currency: EUR\n")                 // sent as text, not JSON
            verify(inPane(editor, "importPane", "notice").visible)
            compare(api.callsTo("GET", "/admin/config?format=yaml").length, 2)   // the export follows
        }

        function test_openFileFailureIsShown() {
            files.chosenPath = "/home/user/missing.yaml"
            const editor = open()
            mouseClick(findChild(editor, "openImport"))
            compare(inPane(editor, "importPane", "error").text, "Cannot read /home/user/missing.yaml: No such file or directory")
            compare(findChild(editor, "importText").text, "")
        }

        function test_refusalNamesTheField() {
            api.answers["PUT /admin/config"] = [400, { error: {
                message: "The configuration was refused as a whole: <admin>:3:5: channels[0].base_url: expected an http:// or https:// URL",
                param: "channels[0].base_url" } }]
            const editor = open()
            const area = findChild(editor, "importText")
            verify(!area.readOnly)
            area.text = "channels:\n  - id: x\n    base_url: ftp://x\n"
            mouseClick(findChild(editor, "applyImport"))
            compare(api.callsTo("PUT", "/admin/config")[0].body, area.text)
            const error = inPane(editor, "importPane", "error")
            verify(error.visible)
            verify(error.text.indexOf("expected an http:// or https:// URL") >= 0)
            verify(error.text.indexOf("Field: channels[0].base_url") >= 0)
            compare(area.text, "channels:\n  - id: x\n    base_url: ftp://x\n")   // kept for correction
        }

        function test_ctrlEnterAppliesAndEmptyTextIsNotSent() {
            api.answers["PUT /admin/config"] = [200, { status: "applied" }]
            const editor = open()
            verify(!findChild(editor, "applyImport").enabled)
            const area = findChild(editor, "importText")
            area.forceActiveFocus()
            keyClick(Qt.Key_Return, Qt.ControlModifier)
            compare(api.callsTo("PUT", "/admin/config").length, 0)
            verify(inPane(editor, "importPane", "error").visible)

            keyClick("a")
            keyClick(":")
            keyClick(" ")
            keyClick("1")
            keyClick(Qt.Key_Return, Qt.ControlModifier)
            const puts = api.callsTo("PUT", "/admin/config")
            compare(puts.length, 1)
            compare(puts[0].body, "a: 1")
        }
    }
}
