import QtQuick
import QtTest
import Switchyard.Dashboard

Item {
    width: 1280; height: 760

    ListModel {
        id: outages
        ListElement { outageId: 7; targetKind: "channel"; target: "cloudru"; kind: "error:503"; description: "503 for 28 s"; secondsLeft: 28 }
    }

    FailureLabPage {
        id: page
        anchors.fill: parent
        channelIds: ["deepseek-main", "cloudru", "yandex", "mws"]
        modelIds: ["deepseek/deepseek-v4-flash", "Qwen/Qwen3.6-35B-A3B"]
        outages: outages
        trafficAvailable: true
        trafficRunning: false
        trafficRate: 2
        trafficStreamShare: 0.5
        trafficModels: ["deepseek/deepseek-v4-flash", "Qwen/Qwen3.6-35B-A3B"]
    }

    SignalSpy { id: outageSpy; target: page; signalName: "outageRequested" }
    SignalSpy { id: restoreSpy; target: page; signalName: "restoreRequested" }
    SignalSpy { id: restoreAllSpy; target: page; signalName: "restoreAllRequested" }
    SignalSpy { id: trafficSpy; target: page; signalName: "trafficRequested" }

    TestCase {
        name: "FailureLabPage"
        when: windowShown

        function test_takeDownAChannelWithKindAndDuration() {
            outageSpy.clear()
            findChild(page, "kindBox").currentIndex = 2      // 429
            findChild(page, "durationBox").currentIndex = 1  // 2 min
            mouseClick(findChild(page, "takeDown_cloudru"))
            compare(outageSpy.count, 1)
            compare(outageSpy.signalArguments[0][0], "channel")
            compare(outageSpy.signalArguments[0][1], "cloudru")
            compare(outageSpy.signalArguments[0][2], "rate_limit")
            compare(outageSpy.signalArguments[0][3], 120)
        }

        function test_takeDownAModel() {
            outageSpy.clear()
            findChild(page, "kindBox").currentIndex = 5      // drop mid-stream
            findChild(page, "durationBox").currentIndex = 0  // 30 s
            mouseClick(findChild(page, "takeDown_Qwen/Qwen3.6-35B-A3B"))
            compare(outageSpy.signalArguments[0][0], "model")
            compare(outageSpy.signalArguments[0][2], "drop_mid_stream")
            compare(outageSpy.signalArguments[0][3], 30)
        }

        function test_restoreOneOrAll() {
            const list = findChild(page, "outageList")
            compare(list.count, 1)
            const row = list.itemAtIndex(0)
            mouseClick(row.children[2])
            compare(restoreSpy.count, 1)
            compare(restoreSpy.signalArguments[0][0], 7)
        }

        function test_trafficSwitchSendsTheSettings() {
            trafficSpy.clear()
            mouseClick(findChild(page, "trafficSwitch"))
            compare(trafficSpy.count, 1)
            compare(trafficSpy.signalArguments[0][0], true)
            compare(trafficSpy.signalArguments[0][1], 2)
            compare(trafficSpy.signalArguments[0][2], 0.5)
            compare(trafficSpy.signalArguments[0][3].length, 2)
        }
    }
}
