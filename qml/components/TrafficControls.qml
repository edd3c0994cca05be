// Demo traffic generator: on/off, rate, share of streaming requests, model mix, and counters.
// Every change is sent as one trafficRequested(running, rate, streamShare, models).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: traffic
    property bool available: false
    property bool running: false
    property real rate: 2
    property real streamShare: 0.5
    property var models: []            // the mix
    property var modelIds: []          // every model
    property real sent: 0
    property real succeeded: 0
    property real failed: 0
    signal trafficRequested(bool running, real rate, real streamShare, var models)

    function request(running, rate, share, models) { traffic.trafficRequested(running, rate, share, models) }

    padding: 12
    enabled: available
    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        RowLayout {
            Layout.fillWidth: true
            Label { text: qsTr("Demo traffic"); font.bold: true; font.pixelSize: 15; Layout.fillWidth: true }
            Switch {
                objectName: "trafficSwitch"
                text: traffic.running ? qsTr("On") : qsTr("Off")
                checked: traffic.running
                enabled: traffic.models.length > 0
                onToggled: traffic.request(checked, traffic.rate, traffic.streamShare, traffic.models)
            }
        }
        Label {
            visible: !traffic.available
            text: qsTr("Available on the demo workspace.")
            opacity: 0.65
        }
        Label { text: qsTr("Rate: %1 requests/s").arg(rateSlider.value.toFixed(1)) }
        Slider {
            id: rateSlider
            objectName: "rateSlider"
            from: 0.5; to: 20; stepSize: 0.5
            value: traffic.rate
            Layout.fillWidth: true
            onMoved: traffic.request(traffic.running, value, traffic.streamShare, traffic.models)
        }
        Label { text: qsTr("Streaming: %1 %").arg(Math.round(shareSlider.value * 100)) }
        Slider {
            id: shareSlider
            objectName: "streamShareSlider"
            from: 0; to: 1; stepSize: 0.05
            value: traffic.streamShare
            Layout.fillWidth: true
            onMoved: traffic.request(traffic.running, traffic.rate, value, traffic.models)
        }
        Label { text: qsTr("Model mix") }
        Repeater {
            model: traffic.modelIds
            delegate: CheckBox {
                required property string modelData
                text: modelData
                checked: traffic.models.indexOf(modelData) >= 0
                onToggled: {
                    const mix = traffic.modelIds.filter(m => m === modelData ? checked : traffic.models.indexOf(m) >= 0)
                    traffic.request(traffic.running && mix.length > 0, traffic.rate, traffic.streamShare, mix)
                }
            }
        }
        Label {
            objectName: "trafficCounters"
            text: qsTr("Sent %1 · succeeded %2 · failed %3").arg(traffic.sent).arg(traffic.succeeded).arg(traffic.failed)
            opacity: 0.8
        }
        Item { Layout.fillHeight: true }
    }
}
