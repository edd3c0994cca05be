import QtQuick
import QtTest
import Switchyard.Dashboard

Item {
    width: 900; height: 600

    StartFailurePanel {
        id: panel
        anchors.fill: parent
    }

    TestCase {
        name: "StartFailurePanel"
        when: windowShown

        function test_hiddenWithoutAMessage() {
            panel.message = ""
            verify(!panel.visible)
        }

        function test_showsTheWholeMessage() {
            const message = "Port 8080 is already in use by another program.\nStart with --port N."
            panel.message = message
            verify(panel.visible)
            compare(findChild(panel, "startFailureText").text, message)
            verify(findChild(panel, "copyStartFailure").visible)
        }
    }
}
