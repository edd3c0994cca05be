// One headline figure: a caption and a large number.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: card
    property string label: ""
    property string value: ""
    property color accent: palette.windowText

    padding: 10
    ColumnLayout {
        anchors.fill: parent
        spacing: 0
        Label { text: card.label; opacity: 0.7; font.pixelSize: 12 }
        Label {
            objectName: "statValue"
            text: card.value
            color: card.accent
            font.pixelSize: 24
            font.bold: true
            // Big figures (a million tokens, a large balance) shrink to fit the card before
            // anything is cut off.
            fontSizeMode: Text.HorizontalFit
            minimumPixelSize: 12
            elide: Text.ElideRight
            Layout.fillWidth: true
            Layout.preferredHeight: 30
        }
    }
}
