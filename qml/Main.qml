// The dashboard window: a header with the gateway's address and key, seven pages (Overview,
// Requests, Failure lab, Configure, Add provider, Connect, Spend; Ctrl+1..7), wired to the gateway
// host's models and actions.
import QtQml
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

ApplicationWindow {
    id: window
    required property QtObject gateway
    // The app's Autostart (start at login, hidden); null in tests that have none.
    property QtObject desktop: null
    property alias currentPage: tabs.currentIndex

    width: 1280
    height: 800
    visible: true
    title: qsTr("Switchyard")

    Shortcut { sequence: "Ctrl+1"; onActivated: tabs.currentIndex = 0 }
    Shortcut { sequence: "Ctrl+2"; onActivated: tabs.currentIndex = 1 }
    Shortcut { sequence: "Ctrl+3"; onActivated: tabs.currentIndex = 2 }
    Shortcut { sequence: "Ctrl+4"; onActivated: tabs.currentIndex = 3 }
    Shortcut { sequence: "Ctrl+5"; onActivated: tabs.currentIndex = 4 }
    Shortcut { sequence: "Ctrl+6"; onActivated: tabs.currentIndex = 5 }
    Shortcut { sequence: "Ctrl+7"; onActivated: tabs.currentIndex = 6 }

    header: ToolBar {
        RowLayout {
            anchors.fill: parent
            anchors.leftMargin: 12
            anchors.rightMargin: 12
            spacing: 16
            // No title label: seven pages and the connection bar fill a 1280-pixel header.
            TabBar {
                id: tabs
                objectName: "pageTabs"
                TabButton { text: qsTr("Overview"); font.bold: checked; width: implicitWidth + 4; ToolTip.text: "Ctrl+1"; ToolTip.visible: hovered }
                TabButton { text: qsTr("Requests"); font.bold: checked; width: implicitWidth + 4; ToolTip.text: "Ctrl+2"; ToolTip.visible: hovered }
                TabButton { text: qsTr("Failure lab"); font.bold: checked; width: implicitWidth + 4; ToolTip.text: "Ctrl+3"; ToolTip.visible: hovered }
                TabButton { text: qsTr("Configure"); font.bold: checked; width: implicitWidth + 4; ToolTip.text: "Ctrl+4"; ToolTip.visible: hovered }
                TabButton { text: qsTr("Add provider"); font.bold: checked; width: implicitWidth + 4; ToolTip.text: "Ctrl+5"; ToolTip.visible: hovered }
                TabButton { text: qsTr("Connect"); font.bold: checked; width: implicitWidth + 4; ToolTip.text: "Ctrl+6"; ToolTip.visible: hovered }
                TabButton { text: qsTr("Spend"); font.bold: checked; width: implicitWidth + 4; ToolTip.text: "Ctrl+7"; ToolTip.visible: hovered }
            }
            Item { Layout.fillWidth: true }
            ConnectionBar {
                listening: window.gateway.listening
                url: window.gateway.url
                apiKey: window.gateway.demoKey
                error: window.gateway.error
            }
        }
    }

    StackLayout {
        anchors.fill: parent
        currentIndex: tabs.currentIndex

        OverviewPage {
            objectName: "overviewPage"
            tiles: window.gateway.tiles
            feed: window.gateway.feed
            feedShowAll: window.gateway.feed.showAll
            historyChannels: window.gateway.history
            historySource: window.gateway.history
            error: window.gateway.error
            requests: window.gateway.requests
            requestsPerSecond: window.gateway.requestsPerSecond
            failedOver: window.gateway.failedOver
            failed: window.gateway.failed
            inFlight: window.gateway.inFlight
            tokens: window.gateway.tokens
            balance: window.gateway.balance
            spendToday: window.gateway.spendToday
            onFeedShowAllToggled: (showAll) => window.gateway.feed.showAll = showAll
            onRequestActivated: (requestId) => { window.gateway.showTrace(requestId); tabs.currentIndex = 1 }
        }

        RequestsPage {
            id: requestsPage
            objectName: "requestsPage"
            requestLog: window.gateway.requestLog
            trace: window.gateway.trace
            traceRows: window.gateway.trace
            keyNames: window.gateway.keyNames
            modelIds: window.gateway.modelIds
            onRequestSelected: (requestId) => window.gateway.showTrace(requestId)
        }

        FailureLabPage {
            objectName: "failureLabPage"
            channelIds: window.gateway.channelIds
            modelIds: window.gateway.modelIds
            outages: window.gateway.outages
            lastActionError: window.gateway.lastActionError
            trafficAvailable: window.gateway.trafficAvailable
            trafficRunning: window.gateway.trafficRunning
            trafficRate: window.gateway.trafficRate
            trafficStreamShare: window.gateway.trafficStreamShare
            trafficModels: window.gateway.trafficModels
            trafficSent: window.gateway.trafficSent
            trafficSucceeded: window.gateway.trafficSucceeded
            trafficFailed: window.gateway.trafficFailed
            onOutageRequested: (targetKind, target, kind, seconds) => window.gateway.setOutage(targetKind, target, kind, seconds)
            onRestoreRequested: (outageId) => window.gateway.restoreOutage(outageId)
            onRestoreAllRequested: window.gateway.clearOutages()
            onTrafficRequested: (running, rate, streamShare, models) => window.gateway.setTraffic(running, rate, streamShare, models)
        }

        ConfigurePage {
            objectName: "configurePage"
            api: window.gateway
            desktop: window.desktop
        }

        AddProviderPage {
            objectName: "addProviderPage"
            api: window.gateway
            active: tabs.currentIndex === 4
            onShowOverviewRequested: tabs.currentIndex = 0
        }

        ConnectPage {
            objectName: "connectPage"
            api: window.gateway
            active: tabs.currentIndex === 5
            defaultKey: window.gateway.demoKey
            modelIds: window.gateway.modelIds
        }

        SpendPage {
            objectName: "spendPage"
            api: window.gateway
            active: tabs.currentIndex === 6
        }
    }

    // When the gateway cannot start: what failed and what to do, over the pages.
    StartFailurePanel {
        objectName: "startFailurePanel"
        anchors.fill: parent
        message: window.gateway.listening ? "" : window.gateway.error
    }

    // The page's filters drive the log query; the log is fetched live while its page is shown.
    Binding { target: window.gateway.requestLog; property: "keyName"; value: requestsPage.keyFilter }
    Binding { target: window.gateway.requestLog; property: "model"; value: requestsPage.modelFilter }
    Binding { target: window.gateway.requestLog; property: "status"; value: requestsPage.statusFilter }
    Binding { target: window.gateway.requestLog; property: "failedOverOnly"; value: requestsPage.failedOverOnly }
    Binding { target: window.gateway; property: "requestLogLive"; value: tabs.currentIndex === 1 && requestsPage.live }
}
