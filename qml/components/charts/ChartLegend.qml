// The legend shared by the overview charts: a colour swatch per channel (the same colours as the
// lines), and what solid and dashed lines mean.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import "SeriesColors.js" as SeriesColors

RowLayout {
    id: legend
    property var channels
    property string note: ""

    spacing: 14
    Repeater {
        model: legend.channels
        delegate: RowLayout {
            required property string channelId
            required property int index
            spacing: 4
            Rectangle { width: 14; height: 3; color: SeriesColors.forRow(index) }
            Label { text: channelId; font.pixelSize: 12 }
        }
    }
    Label { text: legend.note; opacity: 0.7; font.pixelSize: 12; visible: legend.note.length > 0 }
}
