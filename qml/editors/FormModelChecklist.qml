// A checkbox per id (models, virtual models), for choosing a subset. `checkedIds` is the choice in
// the order of `ids`; ids checked but no longer offered stay listed (marked) so that nothing is
// dropped silently.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: checklist
    property var ids: []
    property var checkedIds: []
    property string emptyText: qsTr("No models")

    readonly property var shownIds: ids.concat(checkedIds.filter(id => ids.indexOf(id) < 0))

    function setChecked(id, on) {
        const next = shownIds.filter(other => other === id ? on : checkedIds.indexOf(other) >= 0)
        checkedIds = next
    }

    padding: 4
    implicitHeight: Math.max(Math.min(list.contentHeight, 160), 28) + 2 * padding

    ListView {
        id: list
        objectName: "modelChecklist"
        anchors.fill: parent
        clip: true
        model: checklist.shownIds
        boundsBehavior: Flickable.StopAtBounds
        ScrollBar.vertical: ScrollBar {}
        delegate: CheckBox {
            required property string modelData
            objectName: "allow_" + modelData
            width: ListView.view.width
            text: checklist.ids.indexOf(modelData) >= 0 ? modelData : qsTr("%1 (unknown)").arg(modelData)
            checked: checklist.checkedIds.indexOf(modelData) >= 0
            onToggled: checklist.setChecked(modelData, checked)
        }
        Label {
            anchors.centerIn: parent
            visible: list.count === 0
            text: checklist.emptyText
            opacity: 0.6
        }
    }
}
