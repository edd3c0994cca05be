import QtQuick
import QtTest
import Switchyard.Dashboard

Item {
    width: 1100; height: 760

    // The admin API as the editor sees it: records every call and answers from `answers`
    // ("METHOD target" -> [status, reply]); anything else gets 200 {}.
    QtObject {
        id: api
        property var calls: []
        property var answers: ({})
        function admin(method, target, body, callback) {
            calls = calls.concat([{ method: method, target: target,
                                    body: body === undefined ? undefined : JSON.parse(JSON.stringify(body)) }])
            const answer = answers[method + " " + target] ?? [200, {}]
            callback(answer[0], answer[1])
        }
        function last(method) {
            const found = calls.filter(c => c.method === method)
            return found.length > 0 ? found[found.length - 1] : null
        }
    }

    readonly property var listing: [
        { id: "deepseek/deepseek-v4-flash", enabled: true, free: false, capabilities: ["chat", "tools"],
          context_length: 131072, deprecated: "2026-05-12", rpm_per_key: 0 },
        { id: "Qwen/Qwen3.6-35B-A3B", enabled: true, free: false, capabilities: ["chat"], context_length: 0, rpm_per_key: 0 }
    ]

    ModelsEditor {
        id: editor
        anchors.fill: parent
        api: api
    }

    TestCase {
        name: "ModelsEditor"
        when: windowShown

        function init() {
            editor.active = false
            api.calls = []
            api.answers = { "GET /admin/models": [200, listing] }
            editor.select("")
            editor.active = true
        }
        function child(name) {
            const item = findChild(editor, name)
            verify(item, name)
            return item
        }
        function type(name, text) {
            const field = child(name)
            field.forceActiveFocus()
            field.selectAll()
            keyClick(Qt.Key_Delete)
            for (const c of text)
                keyClick(c)
        }
        function save() { mouseClick(child("saveButton")) }

        function test_showsTheSelectedModel() {
            compare(child("itemList").count, 2)
            compare(child("modelId").text, "deepseek/deepseek-v4-flash")
            verify(!child("modelId").enabled)              // renaming is delete + create
            verify(child("capability_tools").checked)
            verify(!child("capability_vision").checked)
            compare(child("modelContextLength").text, "131072")
            compare(child("sunsetButton").text, "2026-05-12")
        }

        function test_editPutsToTheIdWithItsSlash() {
            mouseClick(child("capability_vision"))
            type("modelContextLength", "65536")
            type("modelRpm", "30")
            mouseClick(child("modelFree"))
            save()
            const put = api.last("PUT")
            compare(put.target, "/admin/models/deepseek/deepseek-v4-flash")
            compare(put.body, { id: "deepseek/deepseek-v4-flash", enabled: true, free: true,
                                capabilities: ["chat", "tools", "vision"], context_length: 65536,
                                deprecated: "2026-05-12", rpm_per_key: 30 })
        }

        function test_clearingTheSunsetSendsNull() {
            mouseClick(child("clearSunset"))
            compare(child("sunsetButton").text, "No sunset")
            save()
            const body = api.last("PUT").body
            verify("deprecated" in body)
            compare(body.deprecated, null)
        }

        function test_pickingASunsetDate() {
            mouseClick(child("item_Qwen/Qwen3.6-35B-A3B"))
            compare(child("sunsetButton").text, "No sunset")
            const picker = child("sunsetPicker")
            mouseClick(child("sunsetButton"))
            tryCompare(picker.calendar, "opened", true)
            mouseClick(findChild(picker.calendar.contentItem, "nextMonth"))
            const next = new Date(picker.cursorYear, picker.cursorMonth, 20)
            const iso = picker.iso(next.getFullYear(), next.getMonth(), 20)
            mouseClick(findChild(picker.calendar.contentItem, "day_" + iso))
            save()
            const put = api.last("PUT")
            compare(put.target, "/admin/models/Qwen/Qwen3.6-35B-A3B")
            compare(put.body.deprecated, iso)
            verify(/^\d{4}-\d{2}-\d{2}$/.test(put.body.deprecated))
        }

        function test_createAModel() {
            mouseClick(child("newItem"))
            compare(child("modelId").text, "")
            verify(child("modelId").enabled)
            type("modelId", "acme/embed-1")
            mouseClick(child("capability_chat"))       // off
            mouseClick(child("capability_embeddings"))
            type("modelContextLength", "8192")
            save()
            const post = api.last("POST")
            compare(post.target, "/admin/models")
            compare(post.body, { id: "acme/embed-1", enabled: true, free: false, capabilities: ["embeddings"],
                                 context_length: 8192, deprecated: null, rpm_per_key: 0 })
        }

        function test_withoutCapabilitiesNothingIsSent() {
            mouseClick(child("capability_chat"))
            mouseClick(child("capability_tools"))
            save()
            compare(api.last("PUT"), null)
            verify(child("formError").visible)
            verify(child("modelForm").marks("capabilities"))
            type("modelContextLength", "lots")
            mouseClick(child("capability_chat"))
            save()
            compare(api.last("PUT"), null)
            verify(child("modelForm").marks("context_length"))
        }

        function test_aRefusalIsShownWithItsReason() {
            const message = "The change was refused as a whole: models[0].deprecated: must be a real date"
            api.answers["PUT /admin/models/deepseek/deepseek-v4-flash"] = [400, { error: { message: message, param: "models[0].deprecated" } }]
            save()
            compare(child("formError").text, message)
            verify(child("modelForm").marks("deprecated"))
            verify(child("sunsetPicker").marked)
        }

        function test_deleteAModelWithASlash() {
            mouseClick(child("item_Qwen/Qwen3.6-35B-A3B"))
            mouseClick(child("deleteButton"))
            mouseClick(child("confirmDelete"))
            compare(api.last("DELETE").target, "/admin/models/Qwen/Qwen3.6-35B-A3B")
        }

        function test_enterSaves() {
            type("modelRpm", "5")
            keyClick(Qt.Key_Enter)
            compare(api.last("PUT").body.rpm_per_key, 5)
        }
    }
}
