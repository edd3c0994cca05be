// One model's settings (docs/configuration.md `models[*]`): enabled, free, capabilities, context
// length, sunset date, per-key RPM. saveRequested gets the whole model; `deprecated` is null for
// no sunset, so that a save also clears a date set before.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Frame {
    id: form
    property var entry: null               // an entry of GET /admin/models; null with `creating`
    property bool creating: false
    property bool busy: false              // a change is on its way: Save waits
    property string error: ""
    property string errorField: ""         // e.g. "models[3].context_length"
    signal saveRequested(var body)
    signal deleteRequested()

    readonly property var capabilityNames: Choices.capabilities
    property var capabilities: ["chat"]
    property string localError: ""
    property string localField: ""
    readonly property string shownError: localError.length > 0 ? localError : error
    readonly property string field: {
        if (localError.length > 0)
            return localField
        const m = /^models\[\d+\]\.(.*)$/.exec(errorField)
        return m ? m[1] : (/^[a-z_]+\[\d+\]/.test(errorField) ? "" : errorField)
    }
    function marks(name) { return field === name || field.startsWith(name + ".") || field.startsWith(name + "[") }

    onEntryChanged: load()
    onCreatingChanged: load()

    function load() {
        const m = creating ? null : entry
        localError = ""
        localField = ""
        actions.confirming = false
        idField.text = m ? m.id : ""
        enabledSwitch.checked = !m || m.enabled !== false
        freeBox.checked = !!(m && m.free)
        capabilities = m && Array.isArray(m.capabilities) ? m.capabilities.slice() : ["chat"]
        contextField.text = m && m.context_length !== undefined ? String(m.context_length) : "0"
        sunsetPicker.date = m && m.deprecated ? String(m.deprecated) : ""
        rpmField.text = m && m.rpm_per_key !== undefined ? String(m.rpm_per_key) : "0"
    }
    function setCapability(name, on) {
        capabilities = capabilityNames.filter(c => c === name ? on : capabilities.indexOf(c) >= 0)
    }
    function refuse(name, message) {
        localField = name
        localError = message
    }
    function wholeNumber(text) {
        const t = String(text).trim()
        return t.length === 0 ? 0 : (/^\d+$/.test(t) ? parseInt(t, 10) : NaN)
    }

    function save() {
        localError = ""
        localField = ""
        const id = idField.text.trim()
        if (id.length === 0 || /[\s\x00-\x1f]/.test(id))
            return refuse("id", qsTr("Id: required, without spaces, e.g. deepseek/deepseek-v4-flash."))
        if (capabilities.length === 0)
            return refuse("capabilities", qsTr("Check at least one capability."))
        const contextLength = wholeNumber(contextField.text)
        if (isNaN(contextLength))
            return refuse("context_length", qsTr("Context length: a whole number of tokens (0 = unknown)."))
        const rpm = wholeNumber(rpmField.text)
        if (isNaN(rpm) || rpm > 1000000)
            return refuse("rpm_per_key", qsTr("RPM per key: a whole number from 0 (no limit) to 1000000."))
        form.saveRequested({
            id: id, enabled: enabledSwitch.checked, free: freeBox.checked,
            capabilities: capabilities.slice(), context_length: contextLength,
            deprecated: sunsetPicker.date.length > 0 ? sunsetPicker.date : null, rpm_per_key: rpm
        })
    }

    component Name: Label {
        property string about
        color: form.marks(about) ? "#d0473b" : palette.windowText
    }
    component Hint: Label { opacity: 0.65; wrapMode: Text.Wrap; Layout.fillWidth: true }

    Keys.onReturnPressed: save()
    Keys.onEnterPressed: save()

    padding: 12
    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        RowLayout {
            Layout.fillWidth: true
            Label {
                text: form.creating ? qsTr("New model") : (form.entry ? form.entry.id : "")
                font.bold: true
                font.pixelSize: 15
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
            Switch {
                id: enabledSwitch
                objectName: "modelEnabled"
                text: checked ? qsTr("Enabled") : qsTr("Disabled")
            }
        }

        ScrollView {
            id: scroll
            clip: true
            contentWidth: availableWidth
            Layout.fillWidth: true
            Layout.fillHeight: true

            GridLayout {
                width: scroll.availableWidth
                columns: 3
                columnSpacing: 10
                rowSpacing: 8

                Name { text: qsTr("Id"); about: "id" }
                TextField {
                    id: idField
                    objectName: "modelId"
                    enabled: form.creating           // renaming is deleting and creating
                    placeholderText: qsTr("e.g. deepseek/deepseek-v4-flash")
                    Layout.columnSpan: 2
                    Layout.fillWidth: true
                }

                Name { text: qsTr("Price"); about: "free" }
                CheckBox { id: freeBox; objectName: "modelFree"; text: qsTr("Free") }
                Hint { text: qsTr("free models are not charged") }

                Name { text: qsTr("Capabilities"); about: "capabilities"; Layout.alignment: Qt.AlignTop; topPadding: 8 }
                Flow {
                    spacing: 4
                    Layout.columnSpan: 2
                    Layout.fillWidth: true
                    Repeater {
                        model: form.capabilityNames
                        delegate: CheckBox {
                            required property string modelData
                            objectName: "capability_" + modelData
                            text: modelData
                            checked: form.capabilities.indexOf(modelData) >= 0
                            onToggled: form.setCapability(modelData, checked)
                        }
                    }
                }

                Name { text: qsTr("Context length"); about: "context_length" }
                TextField { id: contextField; objectName: "modelContextLength"; Layout.preferredWidth: 120 }
                Hint { text: qsTr("tokens; 0 = unknown") }

                Name { text: qsTr("Sunset"); about: "deprecated" }
                SunsetDatePicker {
                    id: sunsetPicker
                    objectName: "sunsetPicker"
                    marked: form.marks("deprecated")
                }
                Hint { text: qsTr("answers carry a Sunset header; after the date the model is refused") }

                Name { text: qsTr("RPM per key"); about: "rpm_per_key" }
                TextField { id: rpmField; objectName: "modelRpm"; Layout.preferredWidth: 120 }
                Hint { text: qsTr("requests per minute for each gateway key; 0 = no limit") }

                Hint {
                    text: qsTr("A model that a channel serves but that is not declared here is listed with the defaults; "
                               + "deleting a model that a channel still serves only resets it to them.")
                    topPadding: 12
                    Layout.columnSpan: 3
                }
            }
        }

        EditorActions {
            id: actions
            creating: form.creating
            busy: form.busy
            error: form.shownError
            what: qsTr("model “%1”").arg(form.entry ? form.entry.id : "")
            Layout.fillWidth: true
            onSaveRequested: form.save()
            onDeleteRequested: form.deleteRequested()
        }
    }
}
