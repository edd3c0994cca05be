// The request log as a table, newest first. Selecting a row (mouse, arrows, Enter) asks for its
// route trace.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: table
    property var model
    property string selectedId: ""
    // True while the pointer is over the rows: the owner pauses live updates so rows hold still.
    readonly property bool rowsHovered: rowsHover.hovered
    signal requestSelected(string requestId)

    // Column widths in pixels; the model column takes what the others leave (at least 70), so
    // the table fits its width down to the window's minimum.
    readonly property var widths: {
        const fixed = [92, 60, 0, 104, 48, 48, 52, 52]
        const others = fixed.reduce((a, b) => a + b, 0) + 7 * 6 + 16
        fixed[2] = Math.max(70, Math.min(196, width - others))
        return fixed
    }

    padding: 0
    ColumnLayout {
        anchors.fill: parent
        spacing: 0
        Rectangle {
            color: table.palette.alternateBase
            Layout.fillWidth: true
            implicitHeight: headerRow.implicitHeight + 8
            Row {
                id: headerRow
                x: 8
                anchors.verticalCenter: parent.verticalCenter
                spacing: 6
                Repeater {
                    model: [qsTr("Time"), qsTr("Key"), qsTr("Model"), qsTr("Channel"), qsTr("Status"),
                            qsTr("Tries"), qsTr("ms"), qsTr("Tokens")]
                    Label {
                        required property string modelData
                        required property int index
                        width: table.widths[index]
                        text: modelData
                        font.bold: true
                        font.pixelSize: 12
                    }
                }
            }
        }
        ListView {
            id: list
            objectName: "requestList"
            model: table.model
            clip: true
            focus: true
            activeFocusOnTab: true
            keyNavigationEnabled: true
            highlightMoveDuration: 0
            currentIndex: -1
            Layout.fillWidth: true
            Layout.fillHeight: true
            ScrollBar.vertical: ScrollBar {}
            onCurrentItemChanged: if (currentItem) table.requestSelected(currentItem.requestId)
            highlight: Rectangle { color: table.palette.highlight; opacity: 0.35 }
            HoverHandler { id: rowsHover }
            delegate: ItemDelegate {
                id: row
                required property int index
                required property string requestId
                required property string time
                required property string keyName
                required property string requestedModel
                required property string channel
                required property int status
                required property int attempts
                required property real totalMs
                required property real tokens
                required property bool failedOver
                width: ListView.view.width
                padding: 3
                leftPadding: 8
                highlighted: table.selectedId === requestId
                onClicked: { list.currentIndex = index; list.forceActiveFocus() }
                contentItem: Row {
                    spacing: 6
                    Repeater {
                        model: [row.time, row.keyName, row.requestedModel, row.channel || "–", row.status,
                                (row.failedOver ? "↻ " : "") + row.attempts, row.totalMs, row.tokens]
                        Label {
                            required property var modelData
                            required property int index
                            width: table.widths[index]
                            text: modelData
                            elide: Text.ElideRight
                            font.pixelSize: 12
                            color: index === 4 && row.status >= 400 ? "#d0473b"
                                 : index === 5 && row.failedOver ? "#e07b24" : palette.windowText
                            font.bold: index === 4 || (index === 5 && row.failedOver)
                        }
                    }
                }
            }
            Label {
                anchors.centerIn: parent
                visible: list.count === 0
                text: qsTr("No requests match")
                opacity: 0.6
            }
        }
    }
}
