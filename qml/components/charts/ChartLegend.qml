// The legend shared by the overview charts: a colour swatch per channel (the same colours as the
// lines), and what solid and dashed lines mean. Wraps onto more lines when its width is short;
// give it a width (Layout.fillWidth).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import "SeriesColors.js" as SeriesColors

Flow {
    id: legend
    property var channels
    property string note: ""

    spacing: 14
    Layout.preferredHeight: childrenRect.height
    Repeater {
        model: legend.channels
        delegate: Row {
            required property string channelId
            required property int index
            spacing: 4
            Rectangle { width: 14; height: 3; color: SeriesColors.forRow(index); anchors.verticalCenter: parent.verticalCenter }
            Label { text: channelId; font.pixelSize: 12 }
        }
    }
    Label {
        text: legend.note
        opacity: 0.7
        font.pixelSize: 12
        visible: legend.note.length > 0
        width: Math.min(implicitWidth, legend.width)
        elide: Text.ElideRight
    }
}
