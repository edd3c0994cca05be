// One channel's settings (SPEC §12, docs/configuration.md `channels[*]`), for a new channel or an
// existing one. Credentials are write-only: the listing only says how many there are; what is
// typed here replaces them all, and a save with nothing typed keeps them (the body then has no
// `credentials`). saveRequested gets the whole channel as the admin API takes it.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Frame {
    id: form
    property var channel: null             // an entry of GET /admin/channels; null with `creating`
    property bool creating: false
    property bool busy: false              // a change is on its way: Save waits
    property var modelIds: []              // ids from GET /admin/models
    property string error: ""              // the gateway's refusal
    property string errorField: ""         // its error.param, e.g. "channels[2].timeouts.idle_s"
    signal saveRequested(var body)
    signal deleteRequested()

    property string localError: ""
    property string localField: ""
    readonly property string shownError: localError.length > 0 ? localError : error
    // The field named, relative to the channel ("timeouts.idle_s"); "" if it is another section's.
    readonly property string field: {
        if (localError.length > 0)
            return localField
        const m = /^channels\[\d+\]\.(.*)$/.exec(errorField)
        return m ? m[1] : (/^[a-z_]+\[\d+\]/.test(errorField) ? "" : errorField)
    }
    readonly property var formats: Choices.formats
    readonly property var tiers: Choices.tiers
    readonly property var collections: Choices.dataCollection
    // How the key is sent; "" = the format's usual way (bearer; x-api-key for Anthropic…).
    readonly property var auths: Choices.keyStyles
    readonly property int credentialCount: channel ? (channel.credential_count ?? 0) : 0

    function marks(name) { return field === name || field.startsWith(name + ".") || field.startsWith(name + "[") }
    function rowField(i) {
        const prefix = "models[" + i + "]."
        return field.startsWith(prefix) ? field.slice(prefix.length) : (field === "models[" + i + "]" ? "id" : "")
    }
    function text(value, fallback) { return value === undefined || value === null ? fallback : String(value) }

    onChannelChanged: load()
    onCreatingChanged: load()

    function load() {
        const c = creating ? null : channel
        localError = ""
        localField = ""
        actions.confirming = false
        idField.text = c ? c.id : ""
        providerField.text = c ? text(c.provider, "") : ""
        baseUrlField.text = c ? text(c.base_url, "") : ""
        formatBox.currentIndex = Math.max(0, formats.indexOf(c ? c.format : "openai"))
        enabledSwitch.checked = !c || c.enabled !== false
        credentials.clear()
        credentials.append({ secret: "" })
        clearCredentials.checked = false
        rows.clear()
        for (const m of (c && c.models) || [])
            rows.append({ modelId: String(m.id), upstream: text(m.upstream, ""),
                          prompt: text(m.price && m.price.prompt, "0"), completion: text(m.price && m.price.completion, "0") })
        const t = (c && c.timeouts) || {}
        concurrencyField.text = c ? text(c.max_concurrent, "0") : "0"
        connectField.text = text(t.connect_s, "10")
        firstByteField.text = text(t.first_byte_s, "30")
        idleField.text = text(t.idle_s, "60")
        tierBox.currentIndex = Math.max(0, tiers.indexOf(c ? c.tier : "standard"))
        quantizationField.text = c ? text(c.quantization, "") : ""
        collectionBox.currentIndex = Math.max(0, collections.indexOf(c ? c.data_collection : "allow"))
        zdrBox.checked = !!(c && c.zdr)
        distillableBox.checked = !!(c && c.distillable)
        parametersField.text = ((c && c.supported_parameters) || []).join(", ")
        proxyField.text = c ? text(c.proxy, "") : ""
        authBox.currentIndex = Math.max(0, auths.indexOf(c ? text(c.auth, "") : ""))
        probeField.text = c ? text(c.probe_interval_s, "0") : "0"
        caFileField.text = c && c.tls ? text(c.tls.ca_file, "") : ""
        insecureBox.checked = !!(c && c.tls && c.tls.insecure)
    }

    function refuse(name, message) {
        localField = name
        localError = message
    }
    // A number as typed, or NaN; empty gives `empty`.
    function number(value, empty) {
        const t = String(value).trim()
        if (t.length === 0)
            return empty
        return /^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : NaN
    }

    function save() {
        localError = ""
        localField = ""
        const slug = /^[A-Za-z0-9][A-Za-z0-9._-]*$/
        const id = idField.text.trim()
        if (!slug.test(id))
            return refuse("id", qsTr("Id: letters, digits, '.', '_' or '-', starting with a letter or digit."))
        const provider = providerField.text.trim()
        if (!slug.test(provider))
            return refuse("provider", qsTr("Provider: a slug such as deepseek (letters, digits, '.', '_', '-')."))
        const baseUrl = baseUrlField.text.trim()
        if (!/^https?:\/\/[^\s\/?#]+[^\s?#]*$/.test(baseUrl))
            return refuse("base_url", qsTr("Base URL: starts with http:// or https://, names a host, no query."))
        const concurrent = number(concurrencyField.text, 0)
        if (!Number.isInteger(concurrent) || concurrent > 1000000)
            return refuse("max_concurrent", qsTr("Capacity: a whole number from 0 (unlimited) to 1000000."))
        const timeouts = {}
        for (const [name, f] of [["connect_s", connectField], ["first_byte_s", firstByteField], ["idle_s", idleField]]) {
            const s = number(f.text, NaN)
            if (!(s > 0 && s <= 86400))
                return refuse("timeouts." + name, qsTr("Timeouts: seconds, more than 0 and at most 86400."))
            timeouts[name] = s
        }
        const models = []
        for (let i = 0; i < rows.count; ++i) {
            const r = rows.get(i)
            const modelId = r.modelId.trim()
            if (modelId.length === 0)
                return refuse("models[" + i + "].id", qsTr("Model %1: choose a model.").arg(i + 1))
            const price = { prompt: number(r.prompt, 0), completion: number(r.completion, 0) }
            if (isNaN(price.prompt))
                return refuse("models[" + i + "].price.prompt", qsTr("Model %1: the prompt price is a number, 0 or more.").arg(i + 1))
            if (isNaN(price.completion))
                return refuse("models[" + i + "].price.completion", qsTr("Model %1: the completion price is a number, 0 or more.").arg(i + 1))
            const entry = { id: modelId, price: price }
            if (r.upstream.trim().length > 0)
                entry.upstream = r.upstream.trim()
            models.push(entry)
        }
        const body = {
            id: id, provider: provider, base_url: baseUrl, format: formats[formatBox.currentIndex],
            enabled: enabledSwitch.checked, max_concurrent: concurrent, timeouts: timeouts,
            tier: tiers[tierBox.currentIndex], quantization: quantizationField.text.trim(),
            data_collection: collections[collectionBox.currentIndex], zdr: zdrBox.checked,
            distillable: distillableBox.checked,
            supported_parameters: parametersField.text.split(/[\s,]+/).filter(p => p.length > 0),
            models: models
        }
        // Sent only when set, so a channel without them reads as before.
        if (authBox.currentIndex > 0)
            body.auth = auths[authBox.currentIndex]
        const probe = number(probeField.text, 0)
        if (!Number.isInteger(probe) || probe < 0 || probe > 86400)
            return refuse("probe_interval_s", qsTr("Probe: whole seconds from 0 (off) to 86400."))
        if (probe > 0)
            body.probe_interval_s = probe
        if (proxyField.text.trim().length > 0)
            body.proxy = proxyField.text.trim()
        if (caFileField.text.trim().length > 0 || insecureBox.checked)
            body.tls = { ca_file: caFileField.text.trim(), insecure: insecureBox.checked }
        const typed = []
        for (let i = 0; i < credentials.count; ++i) {
            const secret = credentials.get(i).secret.trim()
            if (secret.length > 0)
                typed.push(secret)
        }
        if (typed.length > 0 || clearCredentials.checked)
            body.credentials = typed
        form.saveRequested(body)
    }

    ListModel { id: credentials }          // role: secret (as typed; never filled from the API)
    ListModel { id: rows }                 // roles: modelId, upstream, prompt, completion

    component Heading: Label { font.bold: true; topPadding: 10; Layout.fillWidth: true }
    component Hint: Label { opacity: 0.65; wrapMode: Text.Wrap; Layout.fillWidth: true }
    component Name: Label {
        property string about              // the field this names, as the gateway would
        color: form.marks(about) ? "#d0473b" : palette.windowText
    }

    Keys.onReturnPressed: save()
    Keys.onEnterPressed: save()

    padding: 12
    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            Label {
                text: form.creating ? qsTr("New channel") : (form.channel ? form.channel.id : "")
                font.bold: true
                font.pixelSize: 15
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
            Switch {
                id: enabledSwitch
                objectName: "channelEnabled"
                text: checked ? qsTr("Enabled") : qsTr("Disabled")
            }
        }

        ScrollView {
            id: scroll
            clip: true
            contentWidth: availableWidth
            Layout.fillWidth: true
            Layout.fillHeight: true

            ColumnLayout {
                width: scroll.availableWidth
                spacing: 6

                GridLayout {
                    columns: 2
                    columnSpacing: 10
                    rowSpacing: 6
                    Layout.fillWidth: true

                    Name { text: qsTr("Id"); about: "id" }
                    TextField {
                        id: idField
                        objectName: "channelId"
                        enabled: form.creating         // renaming is deleting and creating
                        placeholderText: qsTr("e.g. deepseek-main")
                        Layout.fillWidth: true
                    }
                    Name { text: qsTr("Provider"); about: "provider" }
                    TextField {
                        id: providerField
                        objectName: "channelProvider"
                        placeholderText: qsTr("e.g. deepseek")
                        Layout.fillWidth: true
                    }
                    Name { text: qsTr("Base URL"); about: "base_url" }
                    TextField {
                        id: baseUrlField
                        objectName: "channelBaseUrl"
                        placeholderText: "https://api.example.com/v1"
                        Layout.fillWidth: true
                    }
                    Name { text: qsTr("API format"); about: "format" }
                    ComboBox {
                        id: formatBox
                        objectName: "channelFormat"
                        model: form.formats
                        Layout.preferredWidth: 160
                    }
                }

                Heading { text: qsTr("Credentials"); color: form.marks("credentials") ? "#d0473b" : palette.windowText }
                Hint {
                    objectName: "credentialNote"
                    text: form.creating
                          ? qsTr("Upstream API keys, tried in order. They are never shown again once saved.")
                          : (form.credentialCount === 1 ? qsTr("1 credential stored") : qsTr("%1 credentials stored").arg(form.credentialCount))
                            + qsTr("; they are never shown. Leave these fields empty to keep them; anything typed here replaces all of them.")
                }
                Repeater {
                    model: credentials
                    delegate: TextField {
                        required property int index
                        required property string secret
                        objectName: "credential_" + index
                        text: secret
                        echoMode: TextInput.Password
                        placeholderText: qsTr("API key %1").arg(index + 1)
                        Layout.fillWidth: true
                        onTextEdited: credentials.setProperty(index, "secret", text)
                    }
                }
                RowLayout {
                    Button {
                        objectName: "addCredential"
                        text: qsTr("Another key")
                        onClicked: credentials.append({ secret: "" })
                    }
                    CheckBox {
                        id: clearCredentials
                        objectName: "clearCredentials"
                        visible: !form.creating && form.credentialCount > 0
                        text: qsTr("Remove the stored credentials")
                    }
                }

                Heading { text: qsTr("Models and prices"); color: form.marks("models") ? "#d0473b" : palette.windowText }
                RowLayout {
                    visible: rows.count > 0
                    spacing: 6
                    Hint { text: qsTr("Model"); wrapMode: Text.NoWrap; Layout.fillWidth: false; Layout.preferredWidth: 230 }
                    Hint { text: qsTr("Upstream name"); wrapMode: Text.NoWrap }
                    Hint { text: qsTr("Prompt / 1M"); wrapMode: Text.NoWrap; Layout.fillWidth: false; Layout.preferredWidth: 80 }
                    Hint { text: qsTr("Compl. / 1M"); wrapMode: Text.NoWrap; Layout.fillWidth: false; Layout.preferredWidth: 80 }
                    Item { Layout.preferredWidth: 36 }
                }
                Repeater {
                    model: rows
                    delegate: ChannelModelRow {
                        choices: form.modelIds
                        markedField: form.rowField(index)
                        Layout.fillWidth: true
                        onEdited: (role, value) => rows.setProperty(index, role, value)
                        onRemoveRequested: rows.remove(index)
                        onSubmitted: form.save()
                    }
                }
                Button {
                    objectName: "addModelRow"
                    text: qsTr("Add model")
                    onClicked: rows.append({ modelId: "", upstream: "", prompt: "0", completion: "0" })
                }

                Heading { text: qsTr("Capacity and timeouts") }
                GridLayout {
                    columns: 3
                    columnSpacing: 10
                    rowSpacing: 6
                    Name { text: qsTr("Max concurrent"); about: "max_concurrent" }
                    TextField { id: concurrencyField; objectName: "channelCapacity"; Layout.preferredWidth: 100 }
                    Hint { text: qsTr("requests at once; 0 = unlimited") }
                    Name { text: qsTr("Connect"); about: "timeouts.connect_s" }
                    TextField { id: connectField; objectName: "timeoutConnect"; Layout.preferredWidth: 100 }
                    Hint { text: qsTr("seconds") }
                    Name { text: qsTr("First byte"); about: "timeouts.first_byte_s" }
                    TextField { id: firstByteField; objectName: "timeoutFirstByte"; Layout.preferredWidth: 100 }
                    Hint { text: qsTr("seconds") }
                    Name { text: qsTr("Idle"); about: "timeouts.idle_s" }
                    TextField { id: idleField; objectName: "timeoutIdle"; Layout.preferredWidth: 100 }
                    Hint { text: qsTr("seconds between chunks") }
                }

                Heading { text: qsTr("Provider properties") }
                GridLayout {
                    columns: 2
                    columnSpacing: 10
                    rowSpacing: 6
                    Layout.fillWidth: true
                    Name { text: qsTr("Tier"); about: "tier" }
                    ComboBox { id: tierBox; objectName: "channelTier"; model: form.tiers; Layout.preferredWidth: 160 }
                    Name { text: qsTr("Quantization"); about: "quantization" }
                    TextField { id: quantizationField; objectName: "channelQuantization"; placeholderText: qsTr("unknown, e.g. fp8"); Layout.preferredWidth: 160 }
                    Name { text: qsTr("Data collection"); about: "data_collection" }
                    ComboBox { id: collectionBox; objectName: "channelDataCollection"; model: form.collections; Layout.preferredWidth: 160 }
                    Name { text: qsTr("Parameters"); about: "supported_parameters" }
                    TextField {
                        id: parametersField
                        objectName: "channelParameters"
                        placeholderText: qsTr("supported request parameters, e.g. tools, temperature")
                        Layout.fillWidth: true
                    }
                }
                RowLayout {
                    CheckBox { id: zdrBox; objectName: "channelZdr"; text: qsTr("Zero data retention") }
                    CheckBox { id: distillableBox; objectName: "channelDistillable"; text: qsTr("Distillable") }
                }

                Heading { text: qsTr("Connection") }
                GridLayout {
                    columns: 2
                    columnSpacing: 10
                    rowSpacing: 6
                    Layout.fillWidth: true
                    Name { text: qsTr("Key sent as"); about: "auth" }
                    ComboBox {
                        id: authBox
                        objectName: "channelAuth"
                        model: form.auths.map(a => a.length > 0 ? a : qsTr("the format's default"))
                        Layout.preferredWidth: 200
                    }
                    Name { text: qsTr("Probe every"); about: "probe_interval_s" }
                    RowLayout {
                        TextField { id: probeField; objectName: "channelProbe"; Layout.preferredWidth: 100 }
                        Hint { text: qsTr("seconds; 0 = off (each probe is a paid request)") }
                    }
                    Name { text: qsTr("Proxy"); about: "proxy" }
                    TextField {
                        id: proxyField
                        objectName: "channelProxy"
                        placeholderText: qsTr("none; HTTPS_PROXY / NO_PROXY apply")
                        Layout.fillWidth: true
                    }
                    Name { text: qsTr("CA file"); about: "tls.ca_file" }
                    TextField {
                        id: caFileField
                        objectName: "channelCaFile"
                        placeholderText: qsTr("the system's certificates")
                        Layout.fillWidth: true
                    }
                }
                CheckBox {
                    id: insecureBox
                    objectName: "channelInsecure"
                    text: qsTr("Do not check the TLS certificate (insecure)")
                }
            }
        }

        EditorActions {
            id: actions
            creating: form.creating
            busy: form.busy
            error: form.shownError
            what: qsTr("channel “%1”").arg(form.channel ? form.channel.id : "")
            deleteNote: qsTr("Requests stop using it at once.")
            Layout.fillWidth: true
            onSaveRequested: form.save()
            onDeleteRequested: form.deleteRequested()
        }
    }
}
