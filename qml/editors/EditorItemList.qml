// The left half of the channel, model and virtual model editors: a title with a "New" button and
// the entries, one line each with a summary. The selection is an id (it survives reloads); arrow
// keys move it.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: itemList
    property var items: []                 // entries of a GET /admin/... listing, each with `id`
    property string selectedId: ""
    property string title
    property string newText: qsTr("New")
    property string emptyText: qsTr("Nothing yet")
    property var summary: function(item) { return "" }   // the second line of an entry
    signal selectRequested(string id)
    signal newRequested()

    readonly property int selectedIndex: items.findIndex(item => item.id === selectedId)

    padding: 6
    ColumnLayout {
        anchors.fill: parent
        spacing: 6
        RowLayout {
            Layout.fillWidth: true
            Label { text: itemList.title; font.bold: true; font.pixelSize: 15; Layout.fillWidth: true }
            Button {
                objectName: "newItem"
                text: itemList.newText
                onClicked: itemList.newRequested()
            }
        }
        ListView {
            id: list
            objectName: "itemList"
            clip: true
            model: itemList.items
            activeFocusOnTab: true
            boundsBehavior: Flickable.StopAtBounds
            Layout.fillWidth: true
            Layout.fillHeight: true
            ScrollBar.vertical: ScrollBar {}
            function step(by) {
                const next = Math.max(0, Math.min(itemList.items.length - 1, itemList.selectedIndex + by))
                if (next >= 0 && next < itemList.items.length)
                    itemList.selectRequested(itemList.items[next].id)
            }
            Keys.onUpPressed: step(-1)
            Keys.onDownPressed: step(1)
            Connections {
                target: itemList
                function onSelectedIndexChanged() {
                    if (itemList.selectedIndex >= 0)
                        list.positionViewAtIndex(itemList.selectedIndex, ListView.Contain)
                }
            }
            Rectangle {
                anchors.fill: parent
                color: "transparent"
                border.color: itemList.palette.highlight
                visible: list.activeFocus
            }
            delegate: ItemDelegate {
                id: row
                required property var modelData
                objectName: "item_" + modelData.id
                width: ListView.view.width
                highlighted: modelData.id === itemList.selectedId
                focusPolicy: Qt.NoFocus
                onClicked: itemList.selectRequested(modelData.id)
                contentItem: ColumnLayout {
                    spacing: 0
                    Label {
                        text: row.modelData.id
                        font.bold: true
                        elide: Text.ElideRight
                        opacity: row.modelData.enabled === false ? 0.55 : 1
                        Layout.fillWidth: true
                    }
                    Label {
                        text: itemList.summary(row.modelData)
                        visible: text.length > 0
                        font.pixelSize: 12
                        opacity: 0.7
                        elide: Text.ElideRight
                        Layout.fillWidth: true
                    }
                }
            }
            Label {
                anchors.centerIn: parent
                visible: list.count === 0
                text: itemList.emptyText
                opacity: 0.6
            }
        }
    }
}
