// One gateway key's settings: RPM, max concurrency, spend limit, allowed models, enabled; with
// "Reset breaker" and "Delete". Save sends only the fields that changed (sending `enabled: true`
// also resets the breaker, so it must not ride along with an unrelated edit).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Frame {
    id: form
    property var key: null             // one entry of GET /admin/keys
    property var modelIds: []          // ids a key may be allowed
    property string error: ""          // the gateway's refusal, shown next to the buttons
    property string errorField: ""     // its error.param ("keys[1].rpm"), to mark the field
    signal saveRequested(var patch)
    signal resetBreakerRequested()
    signal deleteRequested()

    property string localError: ""
    property bool confirmingDelete: false
    readonly property string shownError: localError.length > 0 ? localError : error

    onKeyChanged: load()

    function load() {
        localError = ""
        confirmingDelete = false
        if (!key)
            return
        rpmField.text = String(key.rpm ?? 0)
        concurrencyField.text = String(key.max_concurrent ?? 0)
        spendField.text = key.spend_limit === undefined || key.spend_limit === null ? "" : String(key.spend_limit)
        enabledSwitch.checked = key.enabled !== false
        allowed.checkedIds = (key.allowed_models ?? []).slice()
    }

    // The API's field path names this field: "rpm", "keys[1].rpm", "keys[1].allowed_models[0]".
    function marks(name) {
        const f = localError.length > 0 ? localField : errorField
        return f === name || f.endsWith("." + name) || f.indexOf("." + name + "[") >= 0
    }
    property string localField: ""

    function wholeNumber(text) {
        return /^\s*\d+\s*$/.test(text) ? parseInt(text, 10) : NaN
    }
    function refuse(field, message) {
        localField = field
        localError = message
    }

    function save() {
        if (!key)
            return
        const rpm = wholeNumber(rpmField.text)
        if (isNaN(rpm))
            return refuse("rpm", qsTr("Requests per minute: a whole number, 0 or more (0 = no limit)."))
        const concurrent = wholeNumber(concurrencyField.text)
        if (isNaN(concurrent))
            return refuse("max_concurrent", qsTr("Max concurrent: a whole number, 0 or more (0 = no limit)."))
        const spendText = spendField.text.trim()
        const spend = spendText.length === 0 ? null : Number(spendText)
        if (spend !== null && (!isFinite(spend) || spend < 0))
            return refuse("spend_limit", qsTr("Spend limit: a number, 0 or more; empty for no limit."))
        localError = ""
        localField = ""

        const patch = {}
        if (rpm !== (key.rpm ?? 0))
            patch.rpm = rpm
        if (concurrent !== (key.max_concurrent ?? 0))
            patch.max_concurrent = concurrent
        if (spend !== (key.spend_limit ?? null))
            patch.spend_limit = spend
        const models = allowed.checkedIds
        if (JSON.stringify(models) !== JSON.stringify(key.allowed_models ?? []))
            patch.allowed_models = models
        if (enabledSwitch.checked !== (key.enabled !== false))
            patch.enabled = enabledSwitch.checked
        if (Object.keys(patch).length > 0)
            form.saveRequested(patch)
    }

    padding: 12
    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            spacing: 10
            Label {
                text: form.key ? form.key.name : ""
                font.bold: true
                font.pixelSize: 15
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
            KeyBreakerBadge { breakerState: form.key ? (form.key.breaker ?? "closed") : "closed" }
            Switch {
                id: enabledSwitch
                objectName: "keyEnabled"
                text: checked ? qsTr("Enabled") : qsTr("Disabled")
            }
        }
        Label {
            text: qsTr("Spent so far: %1").arg(Number(form.key?.spent ?? 0).toFixed(4))
            opacity: 0.7
        }

        GridLayout {
            columns: 3
            columnSpacing: 10
            rowSpacing: 6
            Layout.fillWidth: true

            Label { text: qsTr("Requests per minute"); color: form.marks("rpm") ? "#d0473b" : palette.windowText }
            TextField {
                id: rpmField
                objectName: "rpmField"
                inputMethodHints: Qt.ImhDigitsOnly
                Layout.preferredWidth: 140
                onAccepted: form.save()
            }
            Label { text: qsTr("0 = no limit"); opacity: 0.6 ; wrapMode: Text.Wrap; Layout.fillWidth: true }

            Label { text: qsTr("Max concurrent"); color: form.marks("max_concurrent") ? "#d0473b" : palette.windowText }
            TextField {
                id: concurrencyField
                objectName: "concurrencyField"
                inputMethodHints: Qt.ImhDigitsOnly
                Layout.preferredWidth: 140
                onAccepted: form.save()
            }
            Label { text: qsTr("0 = no limit"); opacity: 0.6 ; wrapMode: Text.Wrap; Layout.fillWidth: true }

            Label { text: qsTr("Spend limit"); color: form.marks("spend_limit") ? "#d0473b" : palette.windowText }
            TextField {
                id: spendField
                objectName: "spendField"
                placeholderText: qsTr("no limit")
                inputMethodHints: Qt.ImhFormattedNumbersOnly
                Layout.preferredWidth: 140
                onAccepted: form.save()
            }
            Label { text: qsTr("in the workspace currency; empty = no limit"); opacity: 0.6 ; wrapMode: Text.Wrap; Layout.fillWidth: true }
        }

        Label {
            text: qsTr("Allowed models (none checked: every model)")
            color: form.marks("allowed_models") ? "#d0473b" : palette.windowText
        }
        FormModelChecklist {
            id: allowed
            objectName: "allowedModels"
            ids: form.modelIds
            Layout.fillWidth: true
        }

        Label {
            objectName: "keyFormError"
            visible: form.shownError.length > 0
            text: form.shownError
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }

        RowLayout {
            Layout.fillWidth: true
            spacing: 8
            Button {
                objectName: "saveKey"
                text: qsTr("Save")
                highlighted: true
                onClicked: form.save()
                Keys.onReturnPressed: form.save()
            }
            Button {
                objectName: "resetBreaker"
                text: qsTr("Reset breaker")
                enabled: form.key !== null && (form.key.breaker ?? "closed") !== "closed"
                ToolTip.text: qsTr("Lets a key the breaker suspended or disabled send requests again")
                ToolTip.visible: hovered
                onClicked: form.resetBreakerRequested()
            }
            Item { Layout.fillWidth: true }
            Button {
                objectName: "deleteKey"
                text: qsTr("Delete…")
                visible: !form.confirmingDelete
                onClicked: form.confirmingDelete = true
            }
        }
        RowLayout {
            visible: form.confirmingDelete
            Layout.fillWidth: true
            spacing: 8
            Label {
                text: qsTr("Delete key “%1”? Programs using it are refused at once.").arg(form.key ? form.key.name : "")
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
            Button {
                objectName: "confirmDeleteKey"
                text: qsTr("Delete")
                palette.buttonText: "#d0473b"
                onClicked: { form.confirmingDelete = false; form.deleteRequested() }
            }
            Button {
                objectName: "cancelDeleteKey"
                text: qsTr("Cancel")
                onClicked: form.confirmingDelete = false
            }
        }
        Item { Layout.fillHeight: true }
    }
}
