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

    VirtualModelsEditor {
        id: editor
        anchors.fill: parent
        api: api
    }

    TestCase {
        name: "VirtualModelsEditor"
        when: windowShown

        function init() {
            editor.active = false
            api.calls = []
            api.answers = {
                "GET /admin/virtual-models": [200, [{ id: "team/coder", primary: "deepseek/deepseek-v4-flash",
                                                      fallbacks: ["Qwen/Qwen3.6-35B-A3B", "meta/llama-4"] }]],
                "GET /admin/models": [200, [{ id: "deepseek/deepseek-v4-flash" }, { id: "Qwen/Qwen3.6-35B-A3B" },
                                            { id: "meta/llama-4" }, { id: "acme/small" }]]
            }
            editor.select("")
            editor.active = true
        }
        function child(name) {
            const item = findChild(editor, name)
            verify(item, name)
            return item
        }
        function save() { mouseClick(child("saveButton")) }

        function test_showsPrimaryAndFallbacks() {
            // The models arrive after the virtual model: the primary must survive the new list.
            compare(child("primaryModel").editText, "deepseek/deepseek-v4-flash")
            compare(child("entry_0").text, "Qwen/Qwen3.6-35B-A3B")
            compare(child("entry_1").text, "meta/llama-4")
            verify(!child("moveUp_0").enabled)
            verify(!child("moveDown_1").enabled)
            compare(child("addChoice").count, 1)            // only acme/small is left to add
        }

        function test_fallbacksReorder() {
            mouseClick(child("moveDown_0"))
            compare(child("entry_0").text, "meta/llama-4")
            save()
            let put = api.last("PUT")
            compare(put.target, "/admin/virtual-models/team/coder")
            compare(put.body, { id: "team/coder", primary: "deepseek/deepseek-v4-flash",
                                fallbacks: ["meta/llama-4", "Qwen/Qwen3.6-35B-A3B"] })
            // After the reload the list is as the gateway has it: Qwen, llama.
            compare(child("entry_0").text, "Qwen/Qwen3.6-35B-A3B")
            const box = child("addChoice")
            box.editText = "acme/small"
            mouseClick(child("addEntry"))
            mouseClick(child("moveUp_2"))
            save()
            compare(api.last("PUT").body.fallbacks, ["Qwen/Qwen3.6-35B-A3B", "acme/small", "meta/llama-4"])
        }

        function test_fallbacksAddAndRemove() {
            mouseClick(child("remove_0"))
            const box = child("addChoice")
            compare(box.count, 2)                           // Qwen is offered again, the primary is not
            box.currentIndex = box.find("acme/small")
            box.editText = box.currentText
            mouseClick(child("addEntry"))
            save()
            compare(api.last("PUT").body.fallbacks, ["meta/llama-4", "acme/small"])
        }

        function test_primaryChange() {
            child("primaryModel").activated(3)
            save()
            compare(api.last("PUT").body.primary, "acme/small")
        }

        function test_pointingAtItselfShowsTheGatewaysReason() {
            mouseClick(child("newItem"))
            const id = child("virtualModelId")
            id.forceActiveFocus()
            for (const c of "team/self")
                keyClick(c)
            const primary = child("primaryModel")
            mouseClick(primary.contentItem)
            for (const c of "team/self")
                keyClick(c)
            const message = "The change was refused as a whole: virtual_models[1].primary: 'team/self' is the virtual model itself"
            api.answers["POST /admin/virtual-models"] = [400, { error: { message: message, param: "virtual_models[1].primary" } }]
            save()
            const post = api.last("POST")
            compare(post.body, { id: "team/self", primary: "team/self", fallbacks: [] })
            compare(child("formError").text, message)
            verify(child("virtualModelForm").marks("primary"))
            verify(editor.creating)                        // the form stays for fixing
            compare(child("virtualModelId").text, "team/self")
        }

        function test_enterInThePrimarySaves() {
            const primary = child("primaryModel")
            mouseClick(primary.contentItem)
            keyClick(Qt.Key_A, Qt.ControlModifier)
            for (const c of "acme/small")
                keyClick(c)
            // As the gateway would, the reload after the change lists the new primary.
            api.answers["GET /admin/virtual-models"] = [200, [{ id: "team/coder", primary: "acme/small", fallbacks: ["Qwen/Qwen3.6-35B-A3B", "meta/llama-4"] }]]
            keyClick(Qt.Key_Return)
            tryVerify(() => api.last("PUT") !== null)
            compare(api.last("PUT").body.primary, "acme/small")
        }

        function test_primaryIsRequired() {
            mouseClick(child("newItem"))
            child("virtualModelId").text = "team/empty"
            save()
            compare(api.last("POST"), null)
            verify(child("virtualModelForm").marks("primary"))
        }

        function test_delete() {
            mouseClick(child("deleteButton"))
            mouseClick(child("confirmDelete"))
            compare(api.last("DELETE").target, "/admin/virtual-models/team/coder")
        }
    }
}
