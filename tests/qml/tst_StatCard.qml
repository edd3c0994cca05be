import QtQuick
import QtTest
import Switchyard.Dashboard

Item {
    width: 400; height: 200

    StatCard { id: narrow; width: 120; height: 70; label: "Tokens"; value: "1,470,112,345" }
    StatCard { id: roomy; y: 80; width: 300; height: 70; label: "Requests"; value: "85" }

    TestCase {
        name: "StatCard"
        when: windowShown

        function test_bigFiguresShrinkInsteadOfBeingCut() {
            const value = findChild(narrow, "statValue")
            tryVerify(() => value.fontInfo.pixelSize < 24)
            verify(!value.truncated, "the whole figure is shown")
        }

        function test_smallFiguresKeepTheirSize() {
            const value = findChild(roomy, "statValue")
            compare(value.fontInfo.pixelSize, 24)
            verify(!value.truncated)
        }
    }
}
