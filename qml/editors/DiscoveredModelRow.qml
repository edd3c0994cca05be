// One model a provider offers, in the add-provider flow: ticked or not, the public id (editable),
// the name sent upstream, both prices per 1M tokens (prefilled from the preset where known,
// editable) and, once tested, the test's outcome: status, latency and the upstream's error text.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

RowLayout {
    id: row
    required property int index
    required property bool picked
    required property string modelId
    required property string upstream
    required property string prompt
    required property string completion
    required property bool knownPrice
    property var result: null              // {model, ok, status, latency_ms, error} or null
    property bool marked: false            // the field named by a refusal is on this row
    signal edited(string role, var value)

    spacing: 6

    CheckBox {
        objectName: "pick_" + row.index
        checked: row.picked
        onToggled: row.edited("picked", checked)
    }
    TextField {
        objectName: "modelId_" + row.index
        text: row.modelId
        color: row.marked ? "#d0473b" : palette.text
        Layout.preferredWidth: 250
        onTextEdited: row.edited("modelId", text)
    }
    Label { text: row.upstream; opacity: 0.75; elide: Text.ElideRight; Layout.preferredWidth: 170 }
    TextField {
        objectName: "prompt_" + row.index
        text: row.prompt
        Layout.preferredWidth: 70
        onTextEdited: row.edited("prompt", text)
    }
    TextField {
        objectName: "completion_" + row.index
        text: row.completion
        Layout.preferredWidth: 70
        onTextEdited: row.edited("completion", text)
    }
    Label {
        text: row.knownPrice ? qsTr("preset price") : qsTr("price unknown")
        opacity: 0.65
        font.pixelSize: 11
        Layout.preferredWidth: 80
    }
    Label {
        objectName: "result_" + row.index
        visible: row.result !== null
        text: !row.result ? ""
              : row.result.ok ? qsTr("ok %1 · %2 ms").arg(row.result.status ?? 200).arg(row.result.latency_ms ?? "—")
              : qsTr("failed %1 · %2 ms: %3").arg(row.result.status || "—").arg(row.result.latency_ms ?? "—").arg(row.result.error || qsTr("no reason given"))
        color: row.result && row.result.ok ? "#2e9d57" : "#d0473b"
        wrapMode: Text.Wrap
        Layout.fillWidth: true
    }
    Item { visible: row.result === null; Layout.fillWidth: true }
}
