// The dashboard window: a header with the gateway's address and key, seven pages (Overview,
// Requests, Failure lab, Configure, Add provider, Connect, Spend; Ctrl+1..7; each made the first
// time it is shown), wired to the gateway host's models and actions.
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
    // The page shown (0 = Overview); the app saves it and restores it on the next start.
    property alias currentPage: tabs.currentIndex
    // Whether the window is on screen (visible, exposed, not minimized): the app keeps it up to
    // date (WindowShownTracker); while false, nothing that only feeds the pages is redrawn.
    property bool shown: visible
    // The system palette is dark (SystemTheme; the app keeps it up to date). The controls take
    // their colours from the palette itself; this is for what is drawn by hand.
    property bool dark: palette.window.hslLightness < 0.5

    // The app sets the geometry (fitted to the screen, or the saved one) before showing.
    width: 1280
    height: 800
    minimumWidth: 960
    minimumHeight: 600
    visible: true
    title: qsTr("Switchyard")

    // Ctrl+1 … Ctrl+N: page N, one shortcut per tab.
    Instantiator {
        model: tabs.count
        delegate: Shortcut {
            required property int index
            sequence: "Ctrl+" + (index + 1)
            onActivated: tabs.currentIndex = index
        }
    }

    header: ToolBar {
        RowLayout {
            id: headerRow
            anchors.fill: parent
            anchors.leftMargin: 12
            anchors.rightMargin: 12
            spacing: 16
            // No title label: seven pages and the connection bar fill the header at the minimum width.
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
            ConnectionBar {
                listening: window.gateway.listening
                url: window.gateway.url
                apiKey: window.gateway.demoKey
                error: window.gateway.error
                room: headerRow.width - tabs.implicitWidth - headerRow.spacing
                Layout.fillWidth: true
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
            drawn: window.shown
            onFeedShowAllToggled: (showAll) => window.gateway.feed.showAll = showAll
            onRequestActivated: (requestId) => { window.gateway.showTrace(requestId); tabs.currentIndex = 1 }
        }

        PageLoader {
            id: requestsLoader
            current: tabs.currentIndex === 1
            sourceComponent: Component {
                RequestsPage {
                    objectName: "requestsPage"
                    requestLog: window.gateway.requestLog
                    trace: window.gateway.trace
                    traceRows: window.gateway.trace
                    keyNames: window.gateway.keyNames
                    modelIds: window.gateway.modelIds
                    onRequestSelected: (requestId) => window.gateway.showTrace(requestId)
                }
            }
        }

        PageLoader {
            id: failureLabLoader
            current: tabs.currentIndex === 2
            sourceComponent: Component {
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
            }
        }

        PageLoader {
            id: configureLoader
            current: tabs.currentIndex === 3
            sourceComponent: Component {
                ConfigurePage {
                    objectName: "configurePage"
                    api: window.gateway
                    desktop: window.desktop
                }
            }
        }

        PageLoader {
            id: addProviderLoader
            current: tabs.currentIndex === 4
            sourceComponent: Component {
                AddProviderPage {
                    objectName: "addProviderPage"
                    api: window.gateway
                    active: tabs.currentIndex === 4
                    onShowOverviewRequested: tabs.currentIndex = 0
                }
            }
        }

        PageLoader {
            id: connectLoader
            current: tabs.currentIndex === 5
            sourceComponent: Component {
                ConnectPage {
                    objectName: "connectPage"
                    api: window.gateway
                    active: tabs.currentIndex === 5
                    defaultKey: window.gateway.demoKey
                    modelIds: window.gateway.modelIds
                }
            }
        }

        PageLoader {
            id: spendLoader
            current: tabs.currentIndex === 6
            sourceComponent: Component {
                SpendPage {
                    objectName: "spendPage"
                    api: window.gateway
                    active: tabs.currentIndex === 6
                }
            }
        }
    }

    // When the gateway cannot start: what failed and what to do, over the pages.
    StartFailurePanel {
        objectName: "startFailurePanel"
        anchors.fill: parent
        message: window.gateway.listening ? "" : window.gateway.error
    }

    // The page's filters drive the log query; the log is fetched live while its page is shown.
    readonly property var requestsPage: requestsLoader.item
    Binding { target: window.gateway.requestLog; property: "keyName"; when: window.requestsPage !== null; value: window.requestsPage ? window.requestsPage.keyFilter : "" }
    Binding { target: window.gateway.requestLog; property: "model"; when: window.requestsPage !== null; value: window.requestsPage ? window.requestsPage.modelFilter : "" }
    Binding { target: window.gateway.requestLog; property: "status"; when: window.requestsPage !== null; value: window.requestsPage ? window.requestsPage.statusFilter : "" }
    Binding { target: window.gateway.requestLog; property: "failedOverOnly"; when: window.requestsPage !== null; value: window.requestsPage ? window.requestsPage.failedOverOnly : false }
    Binding {
        target: window.gateway; property: "requestLogLive"
        value: window.shown && tabs.currentIndex === 1 && window.requestsPage !== null && window.requestsPage.live
    }
}
