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
        function admin(method, target, body, callback) {
            calls.push({ method: method, target: target, body: body === undefined ? undefined : JSON.parse(JSON.stringify(body)) })
            let answer = answers[method + " " + target]
            if (typeof answer === "function")
                answer = answer(body)
            if (!answer)
                answer = [404, { error: { message: "no answer for " + method + " " + target, param: null } }]
            callback(answer[0], JSON.parse(JSON.stringify(answer[1])))
        }
        function callsTo(method, target) { return calls.filter(c => c.method === method && c.target === target) }
    }

    // The app's Autostart double: like the real one, startHidden only sticks while startAtLogin is on.
    Component {
        id: desktopComponent
        QtObject {
            property bool startAtLogin: false
            property bool startHidden: false
            property string error: ""
            property string entryPath: "autostart/switchyard.desktop"
            onStartAtLoginChanged: if (!startAtLogin) startHidden = false
        }
    }

    Component { id: editorComponent; WorkspaceEditor { width: root.width; height: root.height } }

    function table() {
        return {
            "GET /admin/models": [200, [{ id: "deepseek/deepseek-v4-flash" }, { id: "Qwen/Qwen3.6-35B-A3B" }]],
            "GET /admin/virtual-models": [200, [{ id: "team/coder" }]],
            "GET /admin/default-model": [200, { default_model: "team/coder" }],
            "GET /admin/balance": [200, { currency: "USD", metered: true, balance: "25.000000000",
                                          reserved_in_flight: "0.012000000", spent_today: "1.500000000" }],
            // Two settings the form does not know by name: they must show anyway.
            "GET /admin/settings": [200, { first_chunk_timeout_s: 30, key_limit_wait_s: 2, capacity_wait_s: 10,
                                           retry_pause_ms: 200, max_attempts: 0, max_body_bytes: 16777216,
                                           log_retention_days: 30, some_new_limit: 7, record_everything: false }]
        }
    }

    TestCase {
        name: "WorkspaceEditor"
        when: windowShown

        function init() {
            api.calls = []
            api.answers = table()
        }
        function open() {
            const editor = createTemporaryObject(editorComponent, root, { api: api, active: true })
            verify(editor)
            waitForRendering(editor)
            return editor
        }

        function test_showsWhatTheGatewayAnswers() {
            const editor = open()
            const box = findChild(editor, "defaultModelBox")
            compare(box.count, 4)                        // none, two models, one virtual model
            compare(box.currentText, "team/coder")
            compare(findChild(editor, "balanceFigure").value, "25.00 USD")
            verify(!findChild(editor, "setDefaultModel").enabled)   // nothing to change yet
        }

        function test_settingsAreDrawnFromTheReply() {
            const editor = open()
            compare(findChild(editor, "setting_capacity_wait_s").text, "10")
            compare(findChild(editor, "setting_max_body_bytes").text, "16777216")
            compare(findChild(editor, "setting_log_retention_days").text, "30")
            // Unknown names appear with their raw name; a boolean is a switch.
            compare(findChild(editor, "setting_some_new_limit").text, "7")
            const flag = findChild(editor, "setting_record_everything")
            verify(flag instanceof Switch)
            verify(!flag.checked)
            const form = findChild(editor, "settingsForm")
            compare(form.labelOf("some_new_limit"), "some_new_limit")
            compare(form.labelOf("capacity_wait_s"), "Capacity queue wait")
            compare(form.names[0], "first_chunk_timeout_s")
        }

        function test_setAndClearTheDefaultModel() {
            api.answers["PUT /admin/default-model"] = (body) => [200, body]
            const editor = open()
            const box = findChild(editor, "defaultModelBox")
            box.currentIndex = 2
            mouseClick(findChild(editor, "setDefaultModel"))
            let puts = api.callsTo("PUT", "/admin/default-model")
            compare(puts.length, 1)
            compare(JSON.stringify(puts[0].body), JSON.stringify({ default_model: "Qwen/Qwen3.6-35B-A3B" }))
            compare(api.callsTo("GET", "/admin/default-model").length, 2)   // reloaded

            box.currentIndex = 0
            mouseClick(findChild(editor, "setDefaultModel"))
            puts = api.callsTo("PUT", "/admin/default-model")
            compare(puts.length, 2)
            compare(JSON.stringify(puts[1].body), JSON.stringify({ default_model: null }))
        }

        function test_defaultModelRefusalIsShown() {
            api.answers["PUT /admin/default-model"] = [400, { error: { message: "default_model: unknown model 'gone'", param: "default_model" } }]
            const editor = open()
            findChild(editor, "defaultModelBox").currentIndex = 1
            mouseClick(findChild(editor, "setDefaultModel"))
            const error = findChild(editor, "defaultModelError")
            verify(error.visible)
            compare(error.text, "default_model: unknown model 'gone'")
        }

        function test_topUpWithEnter() {
            api.answers["POST /admin/balance/top-up"] = [200, { currency: "USD", metered: true, balance: "35.000000000",
                                                                reserved_in_flight: "0", spent_today: "0" }]
            const editor = open()
            findChild(editor, "topUpNote").text = "March"
            const amount = findChild(editor, "topUpAmount")
            amount.forceActiveFocus()
            keyClick(Qt.Key_1)
            keyClick(Qt.Key_0)
            keyClick(Qt.Key_Period)
            keyClick(Qt.Key_5)
            keyClick(Qt.Key_Return)
            const posts = api.callsTo("POST", "/admin/balance/top-up")
            compare(posts.length, 1)
            compare(JSON.stringify(posts[0].body), JSON.stringify({ amount: 10.5, note: "March" }))
            compare(amount.text, "")
            compare(api.callsTo("GET", "/admin/balance").length, 2)
            verify(findChild(editor, "balanceNotice").visible)
        }

        function test_topUpRefusals() {
            api.answers["POST /admin/balance/top-up"] = [400, { error: { message: "'amount' must be a positive number.", param: "amount" } }]
            const editor = open()
            const amount = findChild(editor, "topUpAmount")
            amount.text = "-3"
            mouseClick(findChild(editor, "topUp"))
            compare(api.callsTo("POST", "/admin/balance/top-up").length, 0)     // refused in the form
            verify(findChild(editor, "balanceError").visible)

            amount.text = "2000000000"
            mouseClick(findChild(editor, "topUp"))
            const posts = api.callsTo("POST", "/admin/balance/top-up")
            compare(posts.length, 1)
            compare(JSON.stringify(posts[0].body), JSON.stringify({ amount: 2000000000 }))   // no note: the gateway's default
            compare(findChild(editor, "balanceError").text, "'amount' must be a positive number.")
        }

        function test_saveSettingsSendsOnlyChanges() {
            api.answers["PATCH /admin/settings"] = (body) => [200, body]
            const editor = open()
            findChild(editor, "setting_capacity_wait_s").text = "20"
            mouseClick(findChild(editor, "setting_record_everything"))
            mouseClick(findChild(editor, "saveSettings"))
            const patches = api.callsTo("PATCH", "/admin/settings")
            compare(patches.length, 1)
            compare(JSON.stringify(patches[0].body), JSON.stringify({ capacity_wait_s: 20, record_everything: true }))
            compare(api.callsTo("GET", "/admin/settings").length, 2)
        }

        function test_settingsRefusalIsShownAndEnterSubmits() {
            api.answers["PATCH /admin/settings"] = [400, { error: {
                message: "The change was refused as a whole: settings.max_attempts: must be at most 1000", param: "settings.max_attempts" } }]
            const editor = open()
            const field = findChild(editor, "setting_max_attempts")
            field.forceActiveFocus()
            field.selectAll()
            keyClick(Qt.Key_5)
            keyClick(Qt.Key_0)
            keyClick(Qt.Key_0)
            keyClick(Qt.Key_0)
            keyClick(Qt.Key_Return)
            const patches = api.callsTo("PATCH", "/admin/settings")
            compare(patches.length, 1)
            compare(JSON.stringify(patches[0].body), JSON.stringify({ max_attempts: 5000 }))
            const error = findChild(editor, "settingsError")
            verify(error.visible)
            compare(error.text, "The change was refused as a whole: settings.max_attempts: must be at most 1000")
            verify(findChild(editor, "settingsForm").marks("max_attempts"))
            compare(field.text, "5000")
        }

        function test_notANumberIsRefusedLocally() {
            const editor = open()
            findChild(editor, "setting_retry_pause_ms").text = "soon"
            mouseClick(findChild(editor, "saveSettings"))
            compare(api.callsTo("PATCH", "/admin/settings").length, 0)
            verify(findChild(editor, "settingsError").text.indexOf("Pause before a retry") >= 0)
        }

        function test_desktopSwitchesAreHiddenWithoutTheApp() {
            const editor = open()
            verify(!findChild(editor, "desktopStartForm").visible)
        }

        function test_startAtLoginAndHiddenSwitchesWriteThrough() {
            const desktop = createTemporaryObject(desktopComponent, root)
            const editor = createTemporaryObject(editorComponent, root, { api: api, active: true, desktop: desktop })
            waitForRendering(editor)
            verify(findChild(editor, "desktopStartForm").visible)
            const atLogin = findChild(editor, "startAtLogin")
            const hidden = findChild(editor, "startHidden")
            verify(!atLogin.checked)
            verify(!hidden.enabled)             // hidden only means something at login

            mouseClick(atLogin)
            verify(desktop.startAtLogin)
            verify(hidden.enabled)
            mouseClick(hidden)
            verify(desktop.startHidden)
            verify(hidden.checked)

            mouseClick(atLogin)
            verify(!desktop.startAtLogin)
            verify(!hidden.checked)             // follows what the entry says, not the last click
            verify(!hidden.enabled)
        }

        function test_aFailedWriteIsShownAndTheSwitchStaysOff() {
            const desktop = createTemporaryObject(desktopComponent, root)
            desktop.startAtLoginChanged.connect(() => {
                if (desktop.startAtLogin) { desktop.startAtLogin = false; desktop.error = "Cannot write autostart/switchyard.desktop" }
            })
            const editor = createTemporaryObject(editorComponent, root, { api: api, active: true, desktop: desktop })
            waitForRendering(editor)
            const atLogin = findChild(editor, "startAtLogin")
            mouseClick(atLogin)
            verify(!atLogin.checked)
            const error = findChild(editor, "desktopError")
            verify(error.visible)
            compare(error.text, "Cannot write autostart/switchyard.desktop")
        }
    }
}
