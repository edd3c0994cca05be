// The dashboard window. Gets the gateway's snapshot object as a property; shows its pages.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

ApplicationWindow {
    id: window
    required property QtObject gateway

    width: 1280
    height: 800
    visible: true
    title: qsTr("Switchyard")

    StatusPage {
        anchors.fill: parent
        listening: window.gateway.listening
        url: window.gateway.url
        demoKey: window.gateway.demoKey
        error: window.gateway.error
        requests: window.gateway.requests
        succeeded: window.gateway.succeeded
        failed: window.gateway.failed
        inFlight: window.gateway.inFlight
    }
}
