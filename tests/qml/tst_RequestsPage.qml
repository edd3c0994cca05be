import QtQuick
import QtTest
import Switchyard.Dashboard

Item {
    width: 1280; height: 760

    ListModel {
        id: log
        ListElement { requestId: "r2"; time: "12:00:02.100"; keyName: "demo"; requestedModel: "Qwen/Qwen3.6-35B-A3B"; channel: "yandex"; status: 200; attempts: 2; totalMs: 812; tokens: 120; failedOver: true }
        ListElement { requestId: "r1"; time: "12:00:01.000"; keyName: "demo"; requestedModel: "deepseek/deepseek-v4-flash"; channel: "deepseek-main"; status: 200; attempts: 1; totalMs: 300; tokens: 80; failedOver: false }
    }
    QtObject {
        id: trace
        property bool loaded: true
        property string requestId: "r2"
        property string time: "2026-11-29 12:00:02.100"
        property string keyName: "demo"
        property string requestedModel: "Qwen/Qwen3.6-35B-A3B"
        property string answeringModel: "Qwen/Qwen3.6-35B-A3B"
        property string answeringChannel: "yandex"
        property int status: 200
        property string error: ""
        property bool stream: false
        property bool failedOver: true
        property real totalMs: 812
        property real queueMs: 0
    }
    ListModel {
        id: traceRows
        ListElement { section: "candidates"; position: 1; channel: "cloudru"; modelId: ""; status: ""; latencyMs: -1; reason: "" }
        ListElement { section: "candidates"; position: 2; channel: "yandex"; modelId: ""; status: "answered"; latencyMs: -1; reason: "" }
        ListElement { section: "filtered"; position: 1; channel: "mws"; modelId: "Qwen/Qwen3.6-35B-A3B"; status: ""; latencyMs: -1; reason: "capacity full" }
        ListElement { section: "attempts"; position: 1; channel: "cloudru"; modelId: "Qwen/Qwen3.6-35B-A3B"; status: "error"; latencyMs: 12; reason: "HTTP 503: simulated outage" }
        ListElement { section: "attempts"; position: 2; channel: "yandex"; modelId: "Qwen/Qwen3.6-35B-A3B"; status: "ok"; latencyMs: 790; reason: "" }
    }

    RequestsPage {
        id: page
        anchors.fill: parent
        requestLog: log
        trace: trace
        traceRows: traceRows
        keyNames: ["demo", "ci"]
        modelIds: ["deepseek/deepseek-v4-flash", "Qwen/Qwen3.6-35B-A3B"]
    }

    SignalSpy { id: selected; target: page; signalName: "requestSelected" }

    TestCase {
        name: "RequestsPage"
        when: windowShown

        function test_listsTheLog() {
            const list = findChild(page, "requestList")
            compare(list.count, 2)
        }

        function test_clickingARowAsksForItsTrace() {
            selected.clear()
            const list = findChild(page, "requestList")
            mouseClick(list.itemAtIndex(1))
            compare(selected.count, 1)
            compare(selected.signalArguments[0][0], "r1")
        }

        function test_keyboardMovesTheSelection() {
            const list = findChild(page, "requestList")
            list.forceActiveFocus()
            list.currentIndex = 0
            selected.clear()
            keyClick(Qt.Key_Down)
            compare(list.currentIndex, 1)
            compare(selected.signalArguments[0][0], "r1")
        }

        function test_filtersBecomeProperties() {
            const key = findChild(page, "keyFilterBox")
            key.currentIndex = 2
            key.activated(2)
            compare(page.keyFilter, "ci")
            const status = findChild(page, "statusFilterBox")
            status.activated(2)
            compare(page.statusFilter, "failed")
            const model = findChild(page, "modelFilterBox")
            model.activated(0)
            compare(page.modelFilter, "")
            const failedOver = findChild(page, "failedOverBox")
            mouseClick(failedOver)
            verify(page.failedOverOnly)
        }

        function test_liveUpdatesCanBeSwitchedOff() {
            verify(page.live)
            mouseClick(findChild(page, "liveBox"))
            verify(!page.live)
            mouseClick(findChild(page, "liveBox"))
            verify(page.live)
        }

        function test_traceShowsCandidatesFilteredAndAttempts() {
            const list = findChild(page, "traceList")
            compare(list.count, 5)
            compare(findChild(page, "traceStatus").text, "200  · failed over")
        }
    }
}
