// Add a provider in a few steps: pick a preset (GET /admin/presets) → its base URL (editable) and
// the API key → Discover (POST /admin/discover) → tick the models, prices prefilled from the
// preset and editable → Test (POST /admin/test: per model status, latency, the upstream's error)
// → Save: one POST /admin/channels with the key as the channel's credential, which the gateway
// stores like any other (the keychain when there is one). The new channel is served at once and
// its tile shows on the overview. A failed or skipped test asks before saving; a discovery error
// is shown and adds nothing.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard
import "../editors/AdminReply.js" as AdminReply

Page {
    id: page
    // Anything with admin(method, target, body, callback): the GatewayHost, or a test double.
    required property var api
    // True while the page is shown: presets and channel ids are (re)loaded when it turns true.
    property bool active: false
    signal showOverviewRequested()

    property var presets: []
    property var preset: null
    property var channelIds: []
    property int step: 0                   // 0 preset, 1 connection, 2 models, 3 test and save, 4 saved
    property string error: ""
    property string errorField: ""         // "base_url", "credential", "id", "models"
    property bool busy: false
    property var results: ({})             // upstream name → {model, ok, status, latency_ms, error}
    property bool tested: false
    property bool confirming: false
    property string savedId: ""

    // Bumped on every change of `rows`: the counts below are bindings over a ListModel's values.
    property int revision: 0
    readonly property int pickedCount: { revision; let n = 0; for (let i = 0; i < rows.count; ++i) if (rows.get(i).picked) ++n; return n }
    readonly property int failedCount: {
        revision
        let n = 0
        for (let i = 0; i < rows.count; ++i) {
            const r = rows.get(i)
            if (r.picked && !(results[r.upstream] && results[r.upstream].ok))
                ++n
        }
        return n
    }

    property bool completed: false
    onActiveChanged: if (active && completed) reload()
    Component.onCompleted: { completed = true; if (active) reload() }

    function reload() {
        api.admin("GET", "/admin/presets", undefined, (status, reply) => {
            if (!AdminReply.ok(status)) {
                if (step === 0)
                    fail("", AdminReply.errorText(status, reply))
                return
            }
            presets = (reply && Array.isArray(reply.presets)) ? reply.presets : []
        })
        api.admin("GET", "/admin/channels", undefined, (status, reply) => {
            if (AdminReply.ok(status) && Array.isArray(reply))
                channelIds = reply.map(c => String(c.id))
        })
    }

    function fail(field, message) {
        errorField = field
        error = message
        busy = false
        return false
    }
    function clearError() { error = ""; errorField = ""; confirming = false }

    // A channel id that is not taken yet: the preset's id, else id-2, id-3…
    function freeId(base) {
        if (channelIds.indexOf(base) < 0)
            return base
        for (let n = 2; ; ++n) {
            if (channelIds.indexOf(base + "-" + n) < 0)
                return base + "-" + n
        }
    }

    function choose(p) {
        clearError()
        preset = p
        idField.text = freeId(String(p.id))
        baseUrlField.text = String(p.base_url ?? "")
        keyField.text = ""
        proxyField.text = ""
        caFileField.text = ""
        insecureBox.checked = false
        rows.clear()
        results = {}
        tested = false
        savedId = ""
        step = 1
    }

    readonly property bool needsKey: preset !== null && preset.needs_key !== false && !preset.local
    function baseUrl() { return baseUrlField.text.trim() }
    function key() { return keyField.text.trim() }

    function checkConnection() {
        clearError()
        if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(idField.text.trim()))
            return fail("id", qsTr("Channel id: letters, digits, '.', '_' or '-', starting with a letter or digit."))
        if (channelIds.indexOf(idField.text.trim()) >= 0)
            return fail("id", qsTr("Channel id: “%1” is taken; choose another.").arg(idField.text.trim()))
        if (!/^https?:\/\/[^\s\/?#]+[^\s?#]*$/i.test(baseUrl()))
            return fail("base_url", qsTr("Base URL: must start with http:// or https:// and name a host (no query)."))
        if (needsKey && key().length === 0)
            return fail("credential", qsTr("API key: paste the key from the provider's console. It is stored in the keychain, never shown again."))
        return true
    }

    function discover() {
        if (!checkConnection())
            return
        busy = true
        const body = { preset: String(preset.id), format: String(preset.format), base_url: baseUrl(), credential: key() }
        api.admin("POST", "/admin/discover", body, (status, reply) => {
            busy = false
            if (!AdminReply.ok(status)) {
                // The gateway's own refusal already says "Model discovery failed, nothing was added: …".
                const text = AdminReply.errorText(status, reply)
                return fail("discover", /^Model discovery failed/.test(text) ? text : qsTr("Model discovery failed: %1").arg(text))
            }
            const found = (reply && Array.isArray(reply.models)) ? reply.models : []
            if (found.length === 0)
                return fail("discover", qsTr("The provider lists no models at %1. Check the base URL and the key.").arg(baseUrl()))
            rows.clear()
            for (const m of found) {
                rows.append({ picked: found.length <= 5, modelId: String(m.id ?? m.upstream),
                              upstream: String(m.upstream ?? m.id), prompt: String(m.prompt ?? 0),
                              completion: String(m.completion ?? 0), knownPrice: !!m.known_price })
            }
            results = {}
            tested = false
            ++revision
            step = 2
        })
    }

    function setAll(picked) {
        for (let i = 0; i < rows.count; ++i)
            rows.setProperty(i, "picked", picked)
        ++revision
    }

    function pickedUpstreams() {
        const names = []
        for (let i = 0; i < rows.count; ++i) {
            if (rows.get(i).picked)
                names.push(rows.get(i).upstream)
        }
        return names
    }

    function test() {
        clearError()
        if (pickedCount === 0)
            return fail("models", qsTr("Tick at least one model."))
        busy = true
        step = 3
        // The preset tells the gateway how the key is sent (bearer, x-api-key, api-key…).
        const body = { preset: String(preset.id), format: String(preset.format), base_url: baseUrl(),
                       credential: key(), models: pickedUpstreams() }
        api.admin("POST", "/admin/test", body, (status, reply) => {
            busy = false
            tested = true
            if (!AdminReply.ok(status))
                return fail("test", qsTr("The test could not run: %1").arg(AdminReply.errorText(status, reply)))
            const byModel = {}
            for (const r of (reply && Array.isArray(reply.results)) ? reply.results : [])
                byModel[String(r.model)] = r
            results = byModel
        })
    }

    function price(text) {
        const t = String(text).trim()
        if (t.length === 0)
            return 0
        return /^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : NaN
    }

    // The channel as POST /admin/channels takes it, or null after a refusal.
    function channelBody() {
        const models = []
        for (let i = 0; i < rows.count; ++i) {
            const r = rows.get(i)
            if (!r.picked)
                continue
            const id = r.modelId.trim()
            if (id.length === 0)
                return fail("models", qsTr("Model %1: give it an id.").arg(i + 1)) && null
            const prices = { prompt: price(r.prompt), completion: price(r.completion) }
            if (isNaN(prices.prompt) || isNaN(prices.completion))
                return fail("models", qsTr("Model %1: prices are numbers per 1M tokens, 0 or more.").arg(id)) && null
            models.push({ id: id, upstream: r.upstream, price: prices })
        }
        if (models.length === 0)
            return fail("models", qsTr("Tick at least one model.")) && null
        const body = { id: idField.text.trim(), provider: String(preset.id), base_url: baseUrl(),
                       format: String(preset.format), enabled: true,
                       credentials: key().length > 0 ? [key()] : [], models: models }
        if (preset.auth)
            body.auth = String(preset.auth)    // how the provider takes its key
        if (proxyField.text.trim().length > 0)
            body.proxy = proxyField.text.trim()
        if (caFileField.text.trim().length > 0 || insecureBox.checked)
            body.tls = { ca_file: caFileField.text.trim(), insecure: insecureBox.checked }
        return body
    }

    function save(confirmed) {
        clearError()
        if (!checkConnection())
            return
        const body = channelBody()
        if (!body)
            return
        if (!confirmed && failedCount > 0) {
            confirming = true
            return
        }
        busy = true
        api.admin("POST", "/admin/channels", body, (status, reply) => {
            busy = false
            if (!AdminReply.ok(status))
                return fail(AdminReply.errorField(reply), AdminReply.errorText(status, reply))
            savedId = body.id
            channelIds = channelIds.concat([body.id])
            step = 4
        })
    }

    function restart() {
        clearError()
        preset = null
        rows.clear()
        results = {}
        step = 0
        reload()
    }

    ListModel { id: rows }                 // roles: picked, modelId, upstream, prompt, completion, knownPrice

    component Heading: Label { font.bold: true; font.pixelSize: 15; Layout.fillWidth: true }
    component Hint: Label { opacity: 0.7; wrapMode: Text.Wrap; Layout.fillWidth: true }
    component Name: Label {
        property string about
        color: page.errorField === about ? "#d0473b" : palette.windowText
    }

    padding: 12

    ColumnLayout {
        anchors.fill: parent
        spacing: 10

        RowLayout {
            objectName: "steps"
            spacing: 18
            Repeater {
                model: [qsTr("1 Provider"), qsTr("2 Address and key"), qsTr("3 Models"), qsTr("4 Test and save")]
                delegate: Label {
                    required property string modelData
                    required property int index
                    text: modelData
                    font.bold: page.step === index || (page.step === 4 && index === 3)
                    opacity: page.step >= index ? 1 : 0.5
                }
            }
            Item { Layout.fillWidth: true }
            BusyIndicator { running: page.busy; visible: page.busy; Layout.preferredHeight: 28; Layout.preferredWidth: 28 }
        }

        Label {
            objectName: "addProviderError"
            visible: page.error.length > 0
            text: page.error
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }

        StackLayout {
            currentIndex: page.step <= 1 ? page.step : (page.step <= 3 ? 2 : 3)
            Layout.fillWidth: true
            Layout.fillHeight: true

            // 0: the preset
            ColumnLayout {
                spacing: 8
                Heading { text: qsTr("Which provider?") }
                Hint { text: qsTr("Base URL, API format, how the key is sent and a dated price table come with the preset; all of it stays editable.") }
                ProviderPresetList {
                    objectName: "presets"
                    presets: page.presets
                    selectedId: page.preset ? page.preset.id : ""
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    onChosen: (p) => page.choose(p)
                }
            }

            // 1: address and key
            ColumnLayout {
                spacing: 8
                Heading { text: page.preset ? page.preset.name : "" }
                Hint {
                    text: !page.preset ? ""
                          : page.preset.auth === "none"
                            ? qsTr("API format %1; no key is sent; prices as of %2.").arg(page.preset.format).arg(page.preset.prices_as_of ?? "—")
                            : qsTr("API format %1; the key is sent as %2; prices as of %3.")
                                  .arg(page.preset.format).arg(page.preset.auth ?? "bearer").arg(page.preset.prices_as_of ?? "—")
                }
                GridLayout {
                    columns: 2
                    columnSpacing: 10
                    rowSpacing: 6
                    Layout.fillWidth: true
                    Name { text: qsTr("Channel id"); about: "id" }
                    TextField { id: idField; objectName: "newChannelId"; Layout.fillWidth: true }
                    Name { text: qsTr("Base URL"); about: "base_url" }
                    TextField { id: baseUrlField; objectName: "newBaseUrl"; Layout.fillWidth: true; onAccepted: page.discover() }
                    Name { text: qsTr("API key"); about: "credential"; visible: page.needsKey }
                    TextField {
                        id: keyField
                        objectName: "newKey"
                        visible: page.needsKey
                        echoMode: TextInput.Password
                        placeholderText: qsTr("paste the provider's key")
                        Layout.fillWidth: true
                        onAccepted: page.discover()
                    }
                    Name { text: qsTr("Proxy"); about: "proxy" }
                    TextField { id: proxyField; objectName: "newProxy"; placeholderText: qsTr("optional, e.g. http://127.0.0.1:3128"); Layout.fillWidth: true }
                    Name { text: qsTr("CA file"); about: "tls" }
                    TextField { id: caFileField; objectName: "newCaFile"; placeholderText: qsTr("optional; the system's certificates by default"); Layout.fillWidth: true }
                }
                CheckBox {
                    id: insecureBox
                    objectName: "newInsecure"
                    text: qsTr("Do not check the TLS certificate (insecure; the tile shows a warning)")
                }
                Hint {
                    visible: page.needsKey
                    text: qsTr("The key is stored in the system keychain when there is one (else in the database file, readable only by you) and is never shown again.")
                }
                Hint { visible: !page.needsKey; text: qsTr("This provider runs on your machine and needs no key.") }
                RowLayout {
                    Button { text: qsTr("Back"); onClicked: { page.clearError(); page.step = 0 } }
                    Button {
                        objectName: "discoverButton"
                        text: qsTr("Discover models")
                        highlighted: true
                        enabled: !page.busy
                        onClicked: page.discover()
                    }
                }
                Item { Layout.fillHeight: true }
            }

            // 2 and 3: the models, then their test
            ColumnLayout {
                spacing: 8
                Heading {
                    text: page.step === 2 ? qsTr("Models at %1").arg(page.baseUrl())
                                          : qsTr("Test of %1 models at %2").arg(page.pickedCount).arg(page.baseUrl())
                }
                Hint {
                    text: page.step === 2
                          ? qsTr("Tick the models this channel serves. Prices are per 1M prompt / completion tokens in the workspace currency.")
                          : (page.busy ? qsTr("Sending one tiny request per model…")
                                       : page.failedCount === 0 ? qsTr("Every ticked model answered.")
                                                                : qsTr("%1 of %2 ticked models failed.").arg(page.failedCount).arg(page.pickedCount))
                }
                RowLayout {
                    spacing: 6
                    Button { text: qsTr("All"); onClicked: page.setAll(true) }
                    Button { text: qsTr("None"); onClicked: page.setAll(false) }
                    Label { text: qsTr("%1 of %2 ticked").arg(page.pickedCount).arg(rows.count); opacity: 0.7 }
                }
                RowLayout {
                    spacing: 6
                    Item { Layout.preferredWidth: 32 }
                    Hint { text: qsTr("Model id"); Layout.fillWidth: false; Layout.preferredWidth: 250 }
                    Hint { text: qsTr("Upstream name"); Layout.fillWidth: false; Layout.preferredWidth: 170 }
                    Hint { text: qsTr("Prompt"); Layout.fillWidth: false; Layout.preferredWidth: 70 }
                    Hint { text: qsTr("Compl."); Layout.fillWidth: false; Layout.preferredWidth: 70 }
                    Item { Layout.preferredWidth: 80 }
                    Hint { text: page.tested ? qsTr("Test") : "" }
                }
                ListView {
                    id: modelList
                    objectName: "discoveredModels"
                    model: rows
                    clip: true
                    spacing: 2
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    ScrollBar.vertical: ScrollBar {}
                    delegate: DiscoveredModelRow {
                        width: ListView.view.width - 12
                        result: page.tested ? (page.results[upstream] ?? null) : null
                        onEdited: (role, value) => { rows.setProperty(index, role, value); ++page.revision }
                    }
                }
                Label {
                    objectName: "saveConfirm"
                    visible: page.confirming
                    text: page.tested ? qsTr("%1 of %2 ticked models failed the test. Save the channel anyway?").arg(page.failedCount).arg(page.pickedCount)
                                      : qsTr("The models are not tested yet. Save the channel anyway?")
                    color: "#c27c0e"
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                }
                RowLayout {
                    Button { text: qsTr("Back"); onClicked: { page.clearError(); page.step = page.step === 3 ? 2 : 1 } }
                    Button {
                        objectName: "testButton"
                        text: page.tested ? qsTr("Test again") : qsTr("Test")
                        highlighted: page.step === 2
                        enabled: !page.busy && page.pickedCount > 0
                        onClicked: page.test()
                    }
                    Button {
                        objectName: "saveChannelButton"
                        text: qsTr("Save channel")
                        highlighted: page.step === 3
                        enabled: !page.busy && page.pickedCount > 0
                        onClicked: page.save(false)
                    }
                    Button {
                        objectName: "saveAnywayButton"
                        visible: page.confirming
                        text: qsTr("Save anyway")
                        onClicked: page.save(true)
                    }
                }
            }

            // 4: saved
            ColumnLayout {
                spacing: 10
                Heading { objectName: "savedNotice"; text: qsTr("Channel “%1” is added and serving.").arg(page.savedId) }
                Hint { text: qsTr("Its tile is on the overview. Edit it any time under Configure → Channels.") }
                RowLayout {
                    Button { objectName: "showOverviewButton"; text: qsTr("Show the overview"); highlighted: true; onClicked: page.showOverviewRequested() }
                    Button { objectName: "addAnotherButton"; text: qsTr("Add another provider"); onClicked: page.restart() }
                }
                Item { Layout.fillHeight: true }
            }
        }
    }
}
