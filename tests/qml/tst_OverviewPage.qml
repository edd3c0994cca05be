import QtQuick
import QtTest
import Switchyard.Dashboard

Item {
    width: 1280; height: 760

    ListModel {
        id: tiles
        ListElement { channelId: "deepseek-main"; provider: "deepseek"; healthState: "healthy"; inFlight: 1; capacity: 16; queued: 0; requestsPerSecond: 1.5; errorRate: 0; ttftP50: 300; ttftP90: 600; outage: "" }
        ListElement { channelId: "cloudru"; provider: "cloudru"; healthState: "simulated_down"; inFlight: 0; capacity: 8; queued: 0; requestsPerSecond: 0.5; errorRate: 1; ttftP50: -1; ttftP90: -1; outage: "503 for 30 s" }
        ListElement { channelId: "yandex"; provider: "yandex"; healthState: "healthy"; inFlight: 2; capacity: 8; queued: 1; requestsPerSecond: 2; errorRate: 0.02; ttftP50: 250; ttftP90: 500; outage: "" }
        ListElement { channelId: "mws"; provider: "mws"; healthState: "degraded"; inFlight: 0; capacity: 4; queued: 0; requestsPerSecond: 0; errorRate: 0; ttftP50: -1; ttftP90: -1; outage: "" }
    }
    ListModel {
        id: feed
        ListElement { requestId: "r2"; time: "12:00:02"; modelId: "Qwen/Qwen3.6-35B-A3B"; summary: "cloudru 503 → yandex ok, 812 ms"; status: 200 }
        ListElement { requestId: "r1"; time: "12:00:01"; modelId: "Qwen/Qwen3.6-35B-A3B"; summary: "cloudru 503 → mws 503, 90 ms"; status: 502 }
    }
    ListModel {
        id: channels
        ListElement { channelId: "deepseek-main" }
        ListElement { channelId: "cloudru" }
    }
    QtObject {
        id: history
        signal sampled()
        property int fills: 0
        function fillSeries(series, row, metric) {
            ++fills
            series.clear()
            series.append(-10, row + 1)
            series.append(0, row + 2)
        }
        function maxValue(metric) { return 3.2 }
    }

    OverviewPage {
        id: page
        anchors.fill: parent
        tiles: tiles
        feed: feed
        historyChannels: channels
        historySource: history
        requests: 1234
        failedOver: 7
        inFlight: 3
        tokens: 56789
    }

    SignalSpy { id: activated; target: page; signalName: "requestActivated" }

    TestCase {
        name: "OverviewPage"
        when: windowShown

        function test_aTilePerChannel() {
            const repeater = findChild(page, "tileRepeater")
            compare(repeater.count, 4)
            verify(repeater.itemAt(1).outage.length > 0)
            compare(repeater.itemAt(1).healthState, "simulated_down")
        }

        function test_chartsDrawEveryChannelFromTheHistory() {
            const requests = findChild(page, "requestsChart")
            tryCompare(requests, "count", 2)
            compare(requests.series(0).count, 2)
            compare(requests.series(1).at(1).y, 3)
            compare(requests.axisY(requests.series(0)).max, 4)
            // TTFT draws p50 and p90 per channel.
            tryCompare(findChild(page, "ttftChart"), "count", 4)
        }

        function test_chartsRefreshWhenSampled() {
            const requests = findChild(page, "requestsChart")
            tryCompare(requests, "count", 2)
            const before = history.fills
            history.sampled()
            verify(history.fills >= before + 2)
        }

        function test_chartsFollowTheChannels() {
            const requests = findChild(page, "requestsChart")
            channels.append({ channelId: "yandex" })
            tryCompare(requests, "count", 3)
            channels.remove(2)
            tryCompare(requests, "count", 2)
        }

        function test_feedListsFailovers() {
            const list = findChild(page, "feedList")
            compare(list.count, 2)
            mouseClick(list.itemAtIndex(0))
            compare(activated.count, 1)
            compare(activated.signalArguments[0][0], "r2")
        }

        // A chain longer than the feed is wide wraps onto more lines; its row grows to hold them.
        function test_longFeedLinesWrapInsteadOfBeingCut() {
            const hop = "cloudru 503 → yandex 429 → mws timeout after 15000 ms → anthropic-sim 503 → "
            const chain = hop + hop + hop + "deepseek-main ok, 15812 ms"
            feed.insert(0, { requestId: "r3", time: "12:00:03", modelId: "deepseek/deepseek-v4-flash", summary: chain, status: 200 })
            const list = findChild(page, "feedList")
            list.positionViewAtBeginning()
            tryVerify(() => list.itemAtIndex(0) && findChild(list.itemAtIndex(0), "feedSummary").text === chain)
            const row = list.itemAtIndex(0)
            const summary = findChild(row, "feedSummary")
            verify(summary.width > 0 && summary.width < 900, "feed width " + summary.width)
            // Layouts settle on the next polish.
            tryVerify(() => summary.lineCount > 1, 2000, "lines: " + summary.lineCount + ", width " + summary.width + ", text " + summary.implicitWidth)
            verify(!summary.truncated)
            tryVerify(() => row.height >= summary.height + 14, 2000, row.height + " < " + summary.height)
            feed.remove(0)
        }
    }
}
