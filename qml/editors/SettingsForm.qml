// The workspace settings, drawn from whatever GET /admin/settings answers: a number field per
// number, a switch per boolean, a text field otherwise. Known names get a label and a unit; any
// other shows its raw name, so settings added to the gateway appear without a change here.
// Save sends only what changed.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Frame {
    id: form
    property var settings: ({})        // GET /admin/settings
    property string error: ""          // the gateway's refusal
    property string errorField: ""     // its error.param ("settings.max_attempts")
    signal saveRequested(var patch)

    property string localError: ""
    property string localField: ""
    readonly property string shownError: localError.length > 0 ? localError : error

    // name: [label, unit or hint]
    readonly property var known: ({
        first_chunk_timeout_s: [qsTr("First chunk timeout"), qsTr("s")],
        key_limit_wait_s: [qsTr("Wait at a key's limit"), qsTr("s")],
        capacity_wait_s: [qsTr("Capacity queue wait"), qsTr("s")],
        retry_pause_ms: [qsTr("Pause before a retry"), qsTr("ms")],
        max_attempts: [qsTr("Max attempts per request"), qsTr("0 = every candidate")],
        max_body_bytes: [qsTr("Max request body"), qsTr("bytes")],
        log_retention_days: [qsTr("Keep the request log"), qsTr("days, 0 = no limit")],
        log_retention_count: [qsTr("Keep at most"), qsTr("requests, 0 = no limit")],
        log_message_content: [qsTr("Log message contents"), qsTr("off by default")]
    })
    // Known names first in the table's order, then the others as the gateway sent them.
    readonly property var names: {
        const all = Object.keys(settings)
        const order = Object.keys(known)
        return all.filter(n => order.indexOf(n) >= 0).sort((a, b) => order.indexOf(a) - order.indexOf(b))
                  .concat(all.filter(n => order.indexOf(n) < 0))
    }

    function labelOf(name) { return known[name] ? known[name][0] : name }
    function unitOf(name) {
        if (known[name])
            return known[name][1]
        const unit = /_(s|ms|days|bytes)$/.exec(name)
        return unit ? unit[1] : ""
    }
    function marks(name) {
        const f = localError.length > 0 ? localField : errorField
        return f === name || f.endsWith("." + name)
    }

    function save() {
        const patch = {}
        for (let i = 0; i < rows.count; ++i) {
            const row = rows.itemAt(i)
            const value = row.read()
            if (value === undefined) {
                localField = row.name
                localError = qsTr("%1: a number is needed.").arg(labelOf(row.name))
                return
            }
            if (value !== settings[row.name])
                patch[row.name] = value
        }
        localError = ""
        localField = ""
        if (Object.keys(patch).length > 0)
            form.saveRequested(patch)
    }

    padding: 12
    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        Label { text: qsTr("Settings"); font.bold: true; font.pixelSize: 15 }

        ColumnLayout {
            spacing: 6
            Layout.fillWidth: true
            Repeater {
                id: rows
                model: form.names
                delegate: SettingRow {
                    required property string modelData
                    name: modelData
                    value: form.settings[modelData]
                    label: form.labelOf(modelData)
                    unit: form.unitOf(modelData)
                    marked: form.marks(modelData)
                    onAccepted: form.save()
                    Layout.fillWidth: true
                }
            }
        }
        Label {
            visible: form.names.length === 0
            text: qsTr("No settings loaded")
            opacity: 0.6
        }
        Label {
            objectName: "settingsError"
            visible: form.shownError.length > 0
            text: form.shownError
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Button {
            objectName: "saveSettings"
            text: qsTr("Save settings")
            highlighted: true
            enabled: form.names.length > 0
            onClicked: form.save()
            Keys.onReturnPressed: form.save()
        }
        Item { Layout.fillHeight: true }
    }
}
