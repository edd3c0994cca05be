import QtQuick
import QtQuick.Controls
import QtTest
import Switchyard.Dashboard

Item {
    id: root
    width: 1100; height: 760

    // The admin API double: records every call and answers from `answers`
    // ("METHOD target" → [status, reply] or a function(body) returning one).
    QtObject {
        id: api
        property var calls: []
        property var answers: ({})
        property bool deferred: false
        function admin(method, target, body, callback) {
            calls.push({ method: method, target: target, body: body === undefined ? undefined : JSON.parse(JSON.stringify(body)) })
            let answer = answers[method + " " + target]
            if (typeof answer === "function")
                answer = answer(body)
            if (!answer)
                answer = [404, { error: { message: "no answer for " + method + " " + target, param: null } }]
            const reply = JSON.parse(JSON.stringify(answer[1]))
            if (deferred)
                Qt.callLater(() => callback(answer[0], reply))
            else
                callback(answer[0], reply)
        }
        function callsTo(method, target) { return calls.filter(c => c.method === method && c.target === target) }
    }

    Component { id: editorComponent; KeysEditor { width: root.width; height: root.height } }
    TextField { id: scratch; y: root.height - 40; width: 300 }

    function key(name, extra) {
        return Object.assign({ name: name, rpm: 0, max_concurrent: 0, allowed_models: [], enabled: true, breaker: "closed", spent: 0 }, extra)
    }
    function table() {
        return {
            "GET /admin/keys": [200, [key("ide", { rpm: 60, spend_limit: 5, allowed_models: ["deepseek/deepseek-v4-flash"], spent: 1.25 }),
                                      key("ci", { max_concurrent: 4, breaker: "suspended" })]],
            "GET /admin/models": [200, [{ id: "deepseek/deepseek-v4-flash" }, { id: "Qwen/Qwen3.6-35B-A3B" }]],
            "GET /admin/virtual-models": [200, [{ id: "team/coder", primary: "deepseek/deepseek-v4-flash", fallbacks: [] }]]
        }
    }

    TestCase {
        name: "KeysEditor"
        when: windowShown

        function init() {
            api.calls = []
            api.answers = table()
            api.deferred = false
        }
        function open() {
            const editor = createTemporaryObject(editorComponent, root, { api: api, active: true })
            verify(editor)
            waitForRendering(editor)
            return editor
        }

        function test_listRendersFromReplies() {
            const editor = open()
            compare(api.callsTo("GET", "/admin/keys").length, 1)
            const list = findChild(editor, "keyList")
            compare(list.count, 2)
            verify(findChild(editor, "keyRow_ide"))
            verify(findChild(editor, "keyRow_ci").summary.indexOf("4 concurrent") >= 0)
            verify(findChild(editor, "keyRow_ide").summary.indexOf("60 rpm") >= 0)
            // The first key is selected and its form filled in.
            compare(findChild(editor, "rpmField").text, "60")
            compare(findChild(editor, "spendField").text, "5")
            compare(findChild(editor, "concurrencyField").text, "0")
            verify(findChild(editor, "keyEnabled").checked)
            // Allowed models offer models and virtual models; the key's own is checked.
            compare(findChild(editor, "modelChecklist").count, 3)
            verify(findChild(editor, "allow_deepseek/deepseek-v4-flash").checked)
            verify(!findChild(editor, "allow_team/coder").checked)
        }

        function test_reloadsWhenShownAgain() {
            const editor = open()
            editor.active = false
            editor.active = true
            compare(api.callsTo("GET", "/admin/keys").length, 2)
        }

        function test_createShowsTheSecretOnceWithCopy() {
            const secret = "sk-sy-0123456789abcdef0123456789abcdef"
            api.answers["POST /admin/keys"] = [201, Object.assign(key("agent"), { secret: secret })]
            const editor = open()
            const notice = findChild(editor, "secretNotice")
            verify(!notice.visible)

            const name = findChild(editor, "newKeyName")
            name.forceActiveFocus()
            name.text = "agent"
            keyClick(Qt.Key_Return)          // Enter submits
            const posts = api.callsTo("POST", "/admin/keys")
            compare(posts.length, 1)
            compare(JSON.stringify(posts[0].body), JSON.stringify({ name: "agent" }))
            compare(api.callsTo("GET", "/admin/keys").length, 2)   // reloaded
            compare(name.text, "")

            verify(notice.visible)
            waitForRendering(notice)          // laid out before clicking in it
            const field = findChild(editor, "secretField")
            compare(field.text, secret)
            verify(field.readOnly)

            mouseClick(findChild(editor, "copySecret"))
            scratch.text = ""
            scratch.paste()
            compare(scratch.text, secret)

            mouseClick(findChild(editor, "dismissSecret"))
            verify(!notice.visible)
            compare(editor.secret, "")
            compare(field.text, "")
        }

        function test_createRefusedShowsTheReason() {
            api.answers["POST /admin/keys"] = [409, { error: { message: "A key named 'ide' already exists.", param: "name" } }]
            const editor = open()
            findChild(editor, "newKeyName").text = "ide"
            mouseClick(findChild(editor, "createKey"))
            const error = findChild(editor, "keysError")
            verify(error.visible)
            compare(error.text, "A key named 'ide' already exists.")
            verify(!findChild(editor, "secretNotice").visible)
        }

        function test_editSendsOnlyWhatChanged() {
            api.answers["PATCH /admin/keys/ide"] = (body) => [200, Object.assign(key("ide"), body)]
            const editor = open()
            findChild(editor, "rpmField").text = "120"
            findChild(editor, "spendField").text = ""          // no limit any more
            mouseClick(findChild(editor, "allow_Qwen/Qwen3.6-35B-A3B"))
            mouseClick(findChild(editor, "saveKey"))
            const patches = api.callsTo("PATCH", "/admin/keys/ide")
            compare(patches.length, 1)
            compare(JSON.stringify(patches[0].body),
                    JSON.stringify({ rpm: 120, spend_limit: null, allowed_models: ["deepseek/deepseek-v4-flash", "Qwen/Qwen3.6-35B-A3B"] }))
            compare(api.callsTo("GET", "/admin/keys").length, 2)   // reloaded after the change
        }

        function test_enterInAFieldSaves() {
            const editor = open()
            const field = findChild(editor, "concurrencyField")
            field.forceActiveFocus()
            field.selectAll()
            keyClick(Qt.Key_8)
            keyClick(Qt.Key_Return)
            const patches = api.callsTo("PATCH", "/admin/keys/ide")
            compare(patches.length, 1)
            compare(JSON.stringify(patches[0].body), JSON.stringify({ max_concurrent: 8 }))
        }

        function test_disableAndSelectAnotherKey() {
            const editor = open()
            mouseClick(findChild(editor, "keyRow_ci"))
            compare(editor.selectedName, "ci")
            compare(findChild(editor, "concurrencyField").text, "4")
            mouseClick(findChild(editor, "keyEnabled"))
            mouseClick(findChild(editor, "saveKey"))
            const patches = api.callsTo("PATCH", "/admin/keys/ci")
            compare(patches.length, 1)
            compare(JSON.stringify(patches[0].body), JSON.stringify({ enabled: false }))
        }

        function test_arrowKeysMoveTheSelection() {
            const editor = open()
            const list = findChild(editor, "keyList")
            list.forceActiveFocus()
            keyClick(Qt.Key_Down)
            compare(editor.selectedName, "ci")
            compare(findChild(editor, "concurrencyField").text, "4")
            keyClick(Qt.Key_Down)
            compare(editor.selectedName, "ci")
            keyClick(Qt.Key_Up)
            compare(editor.selectedName, "ide")
        }

        function test_refusalIsShownInTheForm() {
            api.answers["PATCH /admin/keys/ide"] = [400, { error: {
                message: "The change was refused as a whole: keys[0].rpm: must be at most 1000000", param: "keys[0].rpm" } }]
            const editor = open()
            findChild(editor, "rpmField").text = "2000000"
            mouseClick(findChild(editor, "saveKey"))
            compare(api.callsTo("PATCH", "/admin/keys/ide").length, 1)
            const error = findChild(editor, "keyFormError")
            verify(error.visible)
            compare(error.text, "The change was refused as a whole: keys[0].rpm: must be at most 1000000")
            compare(findChild(editor, "rpmField").text, "2000000")   // the input is kept for correction
            verify(findChild(editor, "keyForm").marks("rpm"))
            verify(!findChild(editor, "keyForm").marks("max_concurrent"))
        }

        function test_obviouslyInvalidInputIsRefusedLocally() {
            const editor = open()
            findChild(editor, "rpmField").text = "-5"
            mouseClick(findChild(editor, "saveKey"))
            compare(api.callsTo("PATCH", "/admin/keys/ide").length, 0)
            verify(findChild(editor, "keyFormError").text.indexOf("whole number") >= 0)

            findChild(editor, "rpmField").text = "60"
            findChild(editor, "spendField").text = "lots"
            mouseClick(findChild(editor, "saveKey"))
            compare(api.callsTo("PATCH", "/admin/keys/ide").length, 0)
            verify(findChild(editor, "keyFormError").text.indexOf("Spend limit") >= 0)
        }

        function test_deleteAsksFirst() {
            api.answers["DELETE /admin/keys/ide"] = [200, { deleted: "ide" }]
            const editor = open()
            mouseClick(findChild(editor, "deleteKey"))
            compare(api.callsTo("DELETE", "/admin/keys/ide").length, 0)
            waitForRendering(editor)
            mouseClick(findChild(editor, "cancelDeleteKey"))
            compare(api.callsTo("DELETE", "/admin/keys/ide").length, 0)
            mouseClick(findChild(editor, "deleteKey"))
            waitForRendering(editor)
            mouseClick(findChild(editor, "confirmDeleteKey"))
            compare(api.callsTo("DELETE", "/admin/keys/ide").length, 1)
            compare(api.callsTo("GET", "/admin/keys").length, 2)
        }

        function test_resetBreaker() {
            api.answers["POST /admin/keys/ci/reset-breaker"] = [200, { name: "ci", breaker: "closed" }]
            const editor = open()
            verify(!findChild(editor, "resetBreaker").enabled)    // ide's breaker is closed
            mouseClick(findChild(editor, "keyRow_ci"))
            const reset = findChild(editor, "resetBreaker")
            verify(reset.enabled)
            mouseClick(reset)
            const posts = api.callsTo("POST", "/admin/keys/ci/reset-breaker")
            compare(posts.length, 1)
            compare(posts[0].body, undefined)
        }

        function test_repliesMayComeLater() {
            api.deferred = true
            const editor = open()
            tryCompare(findChild(editor, "keyList"), "count", 2)
            tryCompare(findChild(editor, "modelChecklist"), "count", 3)
            tryCompare(findChild(editor, "rpmField"), "text", "60")
        }

        function test_loadFailureIsShown() {
            api.answers["GET /admin/keys"] = [503, { error: { message: "The gateway is not running.", param: null } }]
            const editor = open()
            compare(findChild(editor, "keysError").text, "The gateway is not running.")
            compare(findChild(editor, "keyList").count, 0)
        }
    }
}
