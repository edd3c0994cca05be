// A small caption over a value, for the figures inside a channel tile.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ColumnLayout {
    id: figure
    property string label: ""
    property string value: ""
    // Transparent: the text colour of the controls' palette.
    property color valueColor: "transparent"

    spacing: 0
    Label { id: caption; text: figure.label; opacity: 0.65; font.pixelSize: 11 }
    Label {
        text: figure.value
        color: figure.valueColor.a > 0 ? figure.valueColor : caption.color
        font.pixelSize: 15
        font.bold: true
    }
}
