// Take a channel or a model down on purpose: pick a failure kind and a duration, then press
// "Take down" on a channel or a model row.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Frame {
    id: controls
    property var channelIds: []
    property var modelIds: []
    signal outageRequested(string targetKind, string target, string kind, int seconds)

    readonly property var kinds: Choices.outageKinds
    readonly property var durations: [
        { text: qsTr("30 s"), value: 30 }, { text: qsTr("2 min"), value: 120 }, { text: qsTr("10 min"), value: 600 }
    ]
    readonly property string kind: kinds[kindBox.currentIndex].value
    readonly property int seconds: durations[durationBox.currentIndex].value

    padding: 12
    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        Label { text: qsTr("Take down"); font.bold: true; font.pixelSize: 15 }
        RowLayout {
            spacing: 8
            Label { text: qsTr("Failure") }
            ComboBox {
                id: kindBox
                objectName: "kindBox"
                model: controls.kinds
                textRole: "text"
                Layout.preferredWidth: 170
            }
            Label { text: qsTr("for") }
            ComboBox {
                id: durationBox
                objectName: "durationBox"
                model: controls.durations
                textRole: "text"
                Layout.preferredWidth: 100
            }
        }
        Repeater {
            model: [{ title: qsTr("Channels"), kind: "channel", ids: controls.channelIds },
                    { title: qsTr("Models"), kind: "model", ids: controls.modelIds }]
            delegate: ColumnLayout {
                id: group
                required property var modelData
                spacing: 2
                Layout.fillWidth: true
                Label { text: modelData.title; opacity: 0.7; topPadding: 6 }
                Repeater {
                    model: modelData.ids
                    delegate: RowLayout {
                        required property string modelData
                        Layout.fillWidth: true
                        Label { text: modelData; elide: Text.ElideRight; Layout.fillWidth: true }
                        Button {
                            objectName: "takeDown_" + modelData
                            text: qsTr("Take down")
                            onClicked: controls.outageRequested(group.modelData.kind, modelData,
                                                                controls.kind, controls.seconds)
                        }
                    }
                }
            }
        }
        Item { Layout.fillHeight: true }
    }
}
