import QtQuick
import QtTest
import Switchyard.Dashboard

Item {
    width: 1280; height: 800

    // The admin API as the page sees it: records every call and answers from `answers`
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
        function last(method, target) {
            const found = calls.filter(c => c.method === method && (!target || c.target === target))
            return found.length > 0 ? found[found.length - 1] : null
        }
    }

    readonly property var presets: [
        { id: "openai", name: "OpenAI", base_url: "https://api.openai.com/v1", format: "openai", auth: "bearer",
          models_path: "/models", local: false, needs_key: true, prices_as_of: "2026-11-01", models: [] },
        { id: "ollama", name: "Ollama", base_url: "http://127.0.0.1:11434/v1", format: "openai", auth: "none",
          models_path: "/models", local: true, needs_key: false, prices_as_of: "2026-11-01", models: [] },
        { id: "anthropic", name: "Anthropic", base_url: "https://api.anthropic.com/v1", format: "anthropic", auth: "x-api-key",
          models_path: "/v1/models", local: false, needs_key: true, prices_as_of: "2026-11-01", models: [] }
    ]
    readonly property var discovered: { "models": [
        { id: "openai/gpt-4o-mini", upstream: "gpt-4o-mini", prompt: 0.15, completion: 0.6, known_price: true, capabilities: ["chat"] },
        { id: "openai/gpt-x", upstream: "gpt-x", prompt: 0, completion: 0, known_price: false, capabilities: ["chat"] }
    ] }

    AddProviderPage {
        id: page
        anchors.fill: parent
        api: api
    }
    SignalSpy { id: overview; target: page; signalName: "showOverviewRequested" }

    TestCase {
        name: "AddProviderPage"
        when: windowShown

        function init() {
            page.active = false
            api.calls = []
            api.answers = {
                "GET /admin/presets": [200, { presets: presets }],
                "GET /admin/channels": [200, [{ id: "openai" }, { id: "deepseek-main" }]],
                "POST /admin/discover": [200, discovered],
                "POST /admin/test": [200, { results: [
                    { model: "gpt-4o-mini", ok: true, status: 200, latency_ms: 412, error: "" },
                    { model: "gpt-x", ok: true, status: 200, latency_ms: 380, error: "" }] }]
            }
            page.restart()
            page.active = true
        }
        // Rows of the lists are made on the next polish: wait for them.
        function child(name) {
            tryVerify(() => findChild(page, name), 2000, name)
            return findChild(page, name)
        }
        function type(name, text) {
            const field = child(name)
            field.forceActiveFocus()
            field.selectAll()
            keyClick(Qt.Key_Delete)
            for (const c of text)
                keyClick(c)
        }
        function pick(presetId) {
            tryVerify(() => findChild(page, "preset_" + presetId))
            mouseClick(child("preset_" + presetId))
        }
        function errorText() { return child("addProviderError").visible ? child("addProviderError").text : "" }

        function test_searchFiltersThePresets() {
            const list = child("presetList")
            tryCompare(list, "count", 3)
            type("presetSearch", "anthro")
            compare(list.count, 1)
            type("presetSearch", "11434")
            compare(list.count, 1)
            verify(findChild(page, "preset_ollama"))
            type("presetSearch", "")
            compare(list.count, 3)
        }

        function test_theWholeFlowSavesAChannelWithTheKeyAndTickedModels() {
            pick("openai")
            compare(page.step, 1)
            compare(child("newChannelId").text, "openai-2")     // "openai" is taken
            compare(child("newBaseUrl").text, "https://api.openai.com/v1")
            compare(child("newKey").echoMode, TextInput.Password)
            type("newKey", "sk-test-abc")
            mouseClick(child("discoverButton"))
            compare(api.last("POST", "/admin/discover").body,
                    { preset: "openai", format: "openai", base_url: "https://api.openai.com/v1", credential: "sk-test-abc" })
            compare(page.step, 2)
            compare(child("discoveredModels").count, 2)
            compare(child("prompt_0").text, "0.15")             // the preset's price, prefilled
            // Untick the second model; edit the first one's completion price.
            tryVerify(() => findChild(page, "pick_1"))
            mouseClick(child("pick_1"))
            type("completion_0", "0.7")
            mouseClick(child("testButton"))
            compare(api.last("POST", "/admin/test").body,
                    { preset: "openai", format: "openai", base_url: "https://api.openai.com/v1", credential: "sk-test-abc",
                      models: ["gpt-4o-mini"] })
            compare(page.step, 3)
            verify(child("result_0").text.indexOf("412 ms") >= 0, child("result_0").text)
            mouseClick(child("saveChannelButton"))
            const post = api.last("POST", "/admin/channels")
            verify(post, "no channel saved")
            compare(post.body.id, "openai-2")
            compare(post.body.provider, "openai")
            compare(post.body.format, "openai")
            compare(post.body.base_url, "https://api.openai.com/v1")
            compare(post.body.credentials, ["sk-test-abc"])
            compare(post.body.models, [{ id: "openai/gpt-4o-mini", upstream: "gpt-4o-mini", price: { prompt: 0.15, completion: 0.7 } }])
            verify(!("tls" in post.body))
            compare(post.body.auth, "bearer")
            compare(page.step, 4)
            verify(child("savedNotice").text.indexOf("openai-2") >= 0)
            mouseClick(child("showOverviewButton"))
            compare(overview.count, 1)
        }

        function test_aBaseUrlThatIsNotHttpIsRefusedWithTheFieldNamed() {
            pick("openai")
            type("newBaseUrl", "ftp://api.openai.com/v1")
            type("newKey", "sk-test-abc")
            mouseClick(child("discoverButton"))
            verify(errorText().indexOf("Base URL") >= 0, errorText())
            compare(page.errorField, "base_url")
            compare(api.last("POST", "/admin/discover"), null)
            compare(page.step, 1)
        }

        function test_aKeyIsNeededUnlessThePresetIsLocal() {
            pick("openai")
            mouseClick(child("discoverButton"))
            compare(page.errorField, "credential")
            compare(api.last("POST", "/admin/discover"), null)
            page.step = 0
            pick("ollama")
            verify(!child("newKey").visible)
            mouseClick(child("discoverButton"))
            compare(errorText(), "")
            compare(api.last("POST", "/admin/discover").body.credential, "")
        }

        function test_discoveryErrorsAreShownAndAddNothing() {
            api.answers["POST /admin/discover"] = [502, { error: { message: "the server answered HTML, not a model list", type: "discovery_failed" } }]
            pick("openai")
            type("newKey", "sk-test-abc")
            mouseClick(child("discoverButton"))
            verify(errorText().indexOf("answered HTML") >= 0, errorText())
            compare(page.step, 1)
            compare(child("discoveredModels").count, 0)
            // An empty list is an error too.
            api.answers["POST /admin/discover"] = [200, { models: [] }]
            mouseClick(child("discoverButton"))
            verify(errorText().indexOf("lists no models") >= 0, errorText())
            compare(page.step, 1)
            compare(api.last("POST", "/admin/channels"), null)
        }

        function test_aFailedTestAsksBeforeSavingAndSavesWhenConfirmed() {
            api.answers["POST /admin/test"] = [200, { results: [
                { model: "gpt-4o-mini", ok: false, status: 401, latency_ms: 95, error: "Incorrect API key provided: sk-te***abc" },
                { model: "gpt-x", ok: true, status: 200, latency_ms: 300, error: "" }] }]
            pick("openai")
            type("newKey", "sk-test-abc")
            mouseClick(child("discoverButton"))
            mouseClick(child("testButton"))
            const result = child("result_0").text
            verify(result.indexOf("401") >= 0 && result.indexOf("Incorrect API key") >= 0, result)
            mouseClick(child("saveChannelButton"))
            compare(api.last("POST", "/admin/channels"), null)
            verify(child("saveConfirm").visible)
            verify(child("saveConfirm").text.indexOf("1 of 2") >= 0, child("saveConfirm").text)
            mouseClick(child("saveAnywayButton"))
            verify(api.last("POST", "/admin/channels"))
            compare(api.last("POST", "/admin/channels").body.models.length, 2)
            compare(page.step, 4)
        }

        function test_theGatewaysRefusalOfTheSaveIsShown() {
            api.answers["POST /admin/channels"] = [400, { error: { message: "channels[5].models[0].price.prompt: must be 0 or more", param: "channels[5].models[0].price.prompt" } }]
            pick("openai")
            type("newKey", "sk-test-abc")
            mouseClick(child("discoverButton"))
            mouseClick(child("testButton"))
            mouseClick(child("saveChannelButton"))
            verify(errorText().indexOf("must be 0 or more") >= 0, errorText())
            compare(page.step, 3)
        }

        function test_insecureTlsAndAProxyGoIntoTheChannel() {
            pick("openai")
            type("newKey", "sk-test-abc")
            type("newProxy", "http://127.0.0.1:3128")
            mouseClick(child("newInsecure"))
            mouseClick(child("discoverButton"))
            mouseClick(child("testButton"))
            mouseClick(child("saveChannelButton"))
            const body = api.last("POST", "/admin/channels").body
            compare(body.proxy, "http://127.0.0.1:3128")
            compare(body.tls, { ca_file: "", insecure: true })
        }
    }
}
