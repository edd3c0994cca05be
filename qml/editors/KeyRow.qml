// One gateway key in the keys list: name, limits in one line, enabled and breaker state.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

ItemDelegate {
    id: row
    required property var modelData     // one entry of GET /admin/keys
    required property int index

    readonly property var key: modelData
    readonly property string summary: {
        const parts = []
        parts.push(key.rpm > 0 ? qsTr("%1 rpm").arg(key.rpm) : qsTr("no rpm limit"))
        if (key.max_concurrent > 0)
            parts.push(qsTr("%1 concurrent").arg(key.max_concurrent))
        if (key.spend_limit !== undefined && key.spend_limit !== null)
            parts.push(qsTr("spend ≤ %1").arg(key.spend_limit))
        const allowed = key.allowed_models ?? []
        parts.push(allowed.length === 0 ? qsTr("all models")
                   : allowed.length === 1 ? qsTr("only %1").arg(allowed[0]) : qsTr("only %1 models").arg(allowed.length))
        parts.push(qsTr("spent %1").arg(Number(key.spent ?? 0).toFixed(4)))
        return parts.join(" · ")
    }

    objectName: "keyRow_" + key.name
    contentItem: RowLayout {
        spacing: 8
        ColumnLayout {
            spacing: 0
            Layout.fillWidth: true
            Label {
                text: row.key.name
                font.bold: true
                elide: Text.ElideRight
                opacity: row.key.enabled === false ? 0.55 : 1
                Layout.fillWidth: true
            }
            Label {
                text: row.summary
                font.pixelSize: 12
                opacity: 0.7
                elide: Text.ElideRight
                Layout.fillWidth: true
            }
        }
        Label {
            visible: row.key.enabled === false
            text: qsTr("disabled")
            opacity: 0.7
        }
        KeyBreakerBadge {
            visible: (row.key.breaker ?? "closed") !== "closed"
            breakerState: row.key.breaker ?? "closed"
        }
    }
}
