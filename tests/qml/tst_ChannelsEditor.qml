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
        { id: "deepseek-main", provider: "deepseek", base_url: "https://api.deepseek.com/v1", format: "openai",
          credential_count: 2, enabled: true, max_concurrent: 16,
          timeouts: { connect_s: 10, first_byte_s: 30, idle_s: 60 }, tier: "standard", quantization: "fp8",
          data_collection: "deny", zdr: false, distillable: true, supported_parameters: ["tools", "temperature"],
          models: [{ id: "deepseek/deepseek-v4-flash", upstream: "deepseek-chat", price: { prompt: 0.27, completion: 1.1 } }] },
        { id: "local", provider: "ollama", base_url: "http://127.0.0.1:11434/v1", format: "openai",
          proxy: "http://127.0.0.1:3128", tls: { ca_file: "/etc/company-ca.pem", insecure: true },
          auth: "api-key", probe_interval_s: 300,
          credential_count: 0, enabled: true, max_concurrent: 0,
          timeouts: { connect_s: 10, first_byte_s: 30, idle_s: 60 }, tier: "standard",
          data_collection: "allow", zdr: false, distillable: false, supported_parameters: [],
          models: [{ id: "Qwen/Qwen3.6-35B-A3B", upstream: "qwen3.6:35b-a3b", price: { prompt: 0, completion: 0 } }] }
    ]

    ChannelsEditor {
        id: editor
        anchors.fill: parent
        api: api
    }

    TestCase {
        name: "ChannelsEditor"
        when: windowShown

        function init() {
            editor.active = false
            api.calls = []
            api.answers = {
                "GET /admin/channels": [200, listing],
                "GET /admin/models": [200, [{ id: "deepseek/deepseek-v4-flash" }, { id: "Qwen/Qwen3.6-35B-A3B" }]]
            }
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

        function test_listsChannelsAndShowsNoCredentials() {
            compare(child("itemList").count, 2)
            compare(editor.selectedId, "deepseek-main")
            compare(child("channelProvider").text, "deepseek")
            compare(child("channelCapacity").text, "16")
            compare(child("timeoutIdle").text, "60")
            compare(child("channelQuantization").text, "fp8")
            compare(child("channelDataCollection").currentText, "deny")
            verify(child("channelDistillable").checked)
            compare(child("channelParameters").text, "tools, temperature")
            const secret = child("credential_0")
            compare(secret.text, "")
            compare(secret.echoMode, TextInput.Password)
            verify(child("credentialNote").text.indexOf("2 credential") >= 0, child("credentialNote").text)
            verify(child("credentialNote").text.indexOf("Leave these fields empty to keep them") >= 0)
            compare(child("rowModel_0").editText, "deepseek/deepseek-v4-flash")
            compare(child("rowUpstream_0").text, "deepseek-chat")
            compare(child("rowPrompt_0").text, "0.27")
        }

        function test_editSendsTheWholeChannelWithoutCredentials() {
            type("channelCapacity", "32")
            save()
            const put = api.last("PUT")
            verify(put)
            compare(put.target, "/admin/channels/deepseek-main")
            compare(put.body.max_concurrent, 32)
            verify(!("credentials" in put.body), "credentials sent although none were typed")
            compare(put.body.timeouts, { connect_s: 10, first_byte_s: 30, idle_s: 60 })
            compare(put.body.models, [{ id: "deepseek/deepseek-v4-flash", upstream: "deepseek-chat",
                                        price: { prompt: 0.27, completion: 1.1 } }])
            compare(put.body.data_collection, "deny")
            compare(put.body.supported_parameters, ["tools", "temperature"])
            compare(api.calls[api.calls.length - 2].method, "GET")   // reloaded after the change
        }

        function test_typedCredentialsReplaceTheStoredOnes() {
            type("credential_0", "sk-one")
            mouseClick(child("addCredential"))
            type("credential_1", "sk-two")
            save()
            compare(api.last("PUT").body.credentials, ["sk-one", "sk-two"])
            // The reload empties the fields: a saved credential is never shown again.
            compare(child("credential_0").text, "")
            verify(!findChild(editor, "credential_1"))
        }

        function test_removingTheStoredCredentialsSendsAnEmptyList() {
            mouseClick(child("clearCredentials"))
            save()
            compare(api.last("PUT").body.credentials, [])
        }

        function test_priceRowsAndTimeoutsHaveTheirShape() {
            mouseClick(child("addModelRow"))
            child("rowModel_1").activated(1)                 // Qwen/Qwen3.6-35B-A3B
            type("rowPrompt_1", "0.5")
            type("rowCompletion_1", "2")
            type("timeoutConnect", "2.5")
            type("timeoutFirstByte", "45")
            save()
            const body = api.last("PUT").body
            compare(body.models.length, 2)
            compare(body.models[1], { id: "Qwen/Qwen3.6-35B-A3B", price: { prompt: 0.5, completion: 2 } })
            compare(body.timeouts, { connect_s: 2.5, first_byte_s: 45, idle_s: 60 })
        }

        function test_removingARow() {
            mouseClick(child("rowRemove_0"))
            save()
            compare(api.last("PUT").body.models, [])
        }

        function test_createPostsANewChannel() {
            mouseClick(child("newItem"))
            compare(child("channelId").text, "")
            type("channelId", "acme")
            type("channelProvider", "acme")
            type("channelBaseUrl", "https://api.acme.test/v1")
            child("channelFormat").currentIndex = 1
            child("channelTier").currentIndex = 2
            type("credential_0", "sk-acme")
            mouseClick(child("addModelRow"))
            child("rowModel_0").activated(0)
            type("rowUpstream_0", "flash")
            api.answers["GET /admin/channels"] = [200, listing.concat([{ id: "acme", provider: "acme", credential_count: 1 }])]
            save()
            const post = api.last("POST")
            compare(post.target, "/admin/channels")
            compare(post.body.id, "acme")
            compare(post.body.format, "anthropic")
            compare(post.body.tier, "flex")
            compare(post.body.credentials, ["sk-acme"])
            compare(post.body.max_concurrent, 0)
            compare(post.body.timeouts, { connect_s: 10, first_byte_s: 30, idle_s: 60 })
            compare(post.body.models, [{ id: "deepseek/deepseek-v4-flash", upstream: "flash", price: { prompt: 0, completion: 0 } }])
            compare(editor.selectedId, "acme")
            verify(!editor.creating)
        }

        function test_obviousMistakesAreRefusedInTheForm() {
            mouseClick(child("newItem"))
            type("channelId", "acme")
            type("channelProvider", "acme")
            type("channelBaseUrl", "ftp://acme.test")
            save()
            compare(api.last("POST"), null)
            verify(child("formError").visible)
            verify(child("formError").text.indexOf("http") >= 0, child("formError").text)
            verify(child("channelForm").marks("base_url"))
            type("channelBaseUrl", "https://acme.test")
            type("timeoutIdle", "0")
            save()
            compare(api.last("POST"), null)
            verify(child("channelForm").marks("timeouts.idle_s"))
        }

        function test_aRefusalIsShownWithItsReason() {
            const message = "The change was refused as a whole: channels[0].models[0].id: unknown model 'acme/typo'"
            api.answers["PUT /admin/channels/deepseek-main"] = [400, { error: { message: message, param: "channels[0].models[0].id" } }]
            type("timeoutIdle", "120")
            const before = api.calls.length
            save()
            compare(api.calls.length, before + 1)              // no reload after a refusal
            compare(child("formError").text, message)
            verify(child("formError").visible)
            compare(child("channelForm").rowField(0), "id")
            verify(!child("channelForm").marks("max_concurrent"))
            compare(child("timeoutIdle").text, "120")          // the input stays for fixing
            // Choosing another channel clears the refusal.
            mouseClick(child("item_local"))
            verify(!child("formError").visible)
        }

        function test_enterSaves() {
            type("channelCapacity", "8")
            keyClick(Qt.Key_Return)
            compare(api.last("PUT").body.max_concurrent, 8)
        }

        function test_deleteAsksFirst() {
            mouseClick(child("item_local"))
            mouseClick(child("deleteButton"))
            compare(api.last("DELETE"), null)
            mouseClick(child("confirmDelete"))
            const del = api.last("DELETE")
            compare(del.target, "/admin/channels/local")
            compare(del.body, undefined)
        }

        // A PUT carries the whole channel: its proxy and TLS settings go with it, or are dropped.
        function test_authProbeProxyAndTlsAreShownAndKeptOnSave() {
            editor.select("local")
            compare(child("channelProxy").text, "http://127.0.0.1:3128")
            compare(child("channelCaFile").text, "/etc/company-ca.pem")
            verify(child("channelInsecure").checked)
            save()
            const put = api.last("PUT")
            compare(put.target, "/admin/channels/local")
            compare(put.body.proxy, "http://127.0.0.1:3128")
            compare(put.body.tls, { ca_file: "/etc/company-ca.pem", insecure: true })
            compare(put.body.auth, "api-key")
            compare(put.body.probe_interval_s, 300)
            editor.select("deepseek-main")
            verify(!child("channelInsecure").checked)
            save()
            verify(!("tls" in api.last("PUT").body))
            verify(!("proxy" in api.last("PUT").body))
            verify(!("auth" in api.last("PUT").body))
            verify(!("probe_interval_s" in api.last("PUT").body))
        }
    }
}
