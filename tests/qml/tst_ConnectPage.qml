import QtQuick
import QtQuick.Controls
import QtTest
import Switchyard.Dashboard

Item {
    width: 1100; height: 700

    QtObject {
        id: api
        property var calls: []
        property var answers: ({})
        function admin(method, target, body, callback) {
            calls = calls.concat([{ method: method, target: target, body: body }])
            const answer = answers[method + " " + target]
            if (answer)
                return callback(answer[0], answer[1])
            // The setup text names what it was asked for.
            const m = /^\/admin\/connect\?client=([^&]*)&secret=([^&]*)(&model=(.*))?$/.exec(target)
            if (method === "GET" && m) {
                const client = decodeURIComponent(m[1])
                return callback(200, { client: client, title: client, supported: client !== "gemini-cli",
                                       text: "export KEY=" + decodeURIComponent(m[2]) + (m[4] ? " MODEL=" + decodeURIComponent(m[4]) : "") })
            }
            callback(200, {})
        }
    }

    ConnectPage {
        id: page
        anchors.fill: parent
        api: api
        defaultKey: "sk-demo-123"
        modelIds: ["deepseek/deepseek-v4-flash", "Qwen/Qwen3.6-35B-A3B"]
    }
    TextEdit { id: pasteTarget }

    TestCase {
        name: "ConnectPage"
        when: windowShown

        function init() {
            page.active = false
            api.answers = { "GET /admin/connect": [200, { clients: [{ id: "claude-code", title: "Claude Code" },
                                                                    { id: "codex", title: "Codex CLI" },
                                                                    { id: "gemini-cli", title: "Gemini CLI" }] }],
                            "POST /admin/keys": [201, { name: "x", secret: "sk-new-456" }] }
            page.clientId = ""
            findChild(page, "connectKey").text = page.defaultKey
            findChild(page, "connectModel").currentIndex = 0
            page.active = true
        }
        function child(name) {
            const item = findChild(page, name)
            verify(item, name)
            return item
        }

        function test_theFirstClientsSetupShowsWithTheKey() {
            tryCompare(child("clientList"), "count", 3)
            compare(page.clientId, "claude-code")
            compare(child("setupText").text, "export KEY=sk-demo-123")
            verify(!child("unsupportedNotice").visible)
        }

        function test_aModelAndAnotherClientChangeTheSetup() {
            mouseClick(child("client_codex"))
            compare(child("setupText").text, "export KEY=sk-demo-123")
            const box = child("connectModel")
            box.currentIndex = 2
            box.activated(2)
            compare(child("setupText").text, "export KEY=sk-demo-123 MODEL=Qwen/Qwen3.6-35B-A3B")
        }

        function test_aClientThatIsNotServedSaysSo() {
            mouseClick(child("client_gemini-cli"))
            verify(child("unsupportedNotice").visible)
        }

        function test_aNewKeyIsMadeForTheClientAndUsed() {
            mouseClick(child("makeKeyButton"))
            const post = api.calls.filter(c => c.method === "POST").pop()
            verify(post.body.name.indexOf("claude-code-") === 0, post.body.name)
            compare(child("connectKey").text, "sk-new-456")
            compare(child("setupText").text, "export KEY=sk-new-456")
            verify(child("connectKeyNotice").visible)
        }

        function test_copyPutsTheSetupOnTheClipboard() {
            mouseClick(child("copySetupButton"))
            pasteTarget.text = ""
            pasteTarget.paste()
            compare(pasteTarget.text, child("setupText").text)
        }

        function test_anErrorOfTheApiIsShown() {
            page.active = false
            api.answers["GET /admin/connect"] = [404, { error: { message: "no such route" } }]
            page.clientId = ""
            page.active = true
            verify(child("connectError").visible)
            compare(child("connectError").text, "no such route")
        }
    }
}
