// A live line chart of the last five minutes, one line per channel and metric. `channels` is any
// model with a `channelId` role (one row per channel); `source` fills a series with the points of
// one (row, metric) — fillSeries(series, row, metric), maxValue(metric) — and signals sampled().
// The first metric is drawn solid, the others dashed.
import QtQml
import QtQuick
import QtQuick.Controls
import QtCharts
import "SeriesColors.js" as SeriesColors

ChartView {
    id: chart
    property var channels
    property var source
    property var metrics: ["requests"]
    property string unit: ""
    property int windowSeconds: 300
    // False while the window is off screen: new samples are not drawn (nor their series filled);
    // the chart catches up once when it is live and visible again.
    property bool live: true
    readonly property bool drawing: live && visible
    onDrawingChanged: if (drawing) refresh()
    readonly property int seriesCount: entries.length
    property var entries: []    // [{ series, row, metric }]

    function rebuild() {
        chart.removeAllSeries()
        const made = []
        for (let row = 0; row < rows.count; ++row) {
            const id = rows.objectAt(row) ? rows.objectAt(row).channelId : ""
            for (let m = 0; m < chart.metrics.length; ++m) {
                const series = chart.createSeries(ChartView.SeriesTypeLine,
                                                  chart.metrics.length > 1 ? id + " " + chart.metrics[m] : id,
                                                  axisX, axisY)
                series.color = SeriesColors.forRow(row)
                series.width = 2
                if (m > 0)
                    series.style = Qt.DashLine
                made.push({ series: series, row: row, metric: chart.metrics[m] })
            }
        }
        chart.entries = made
        refresh()
    }

    function refresh() {
        if (!chart.source)
            return
        let top = 0
        for (const e of chart.entries) {
            chart.source.fillSeries(e.series, e.row, e.metric)
        }
        for (const metric of chart.metrics)
            top = Math.max(top, chart.source.maxValue(metric))
        axisY.max = niceCeiling(top)
    }

    // 0.8 → 1, 3.2 → 4, 17 → 20, 430 → 800: stable axes whose four steps are round numbers.
    function niceCeiling(v) {
        if (v <= 0)
            return 1
        const p = Math.pow(10, Math.floor(Math.log10(v)))
        for (const f of [1, 2, 4, 8, 10]) {
            if (v <= f * p)
                return f * p
        }
        return 10 * p
    }

    // The fewest decimals that show each of the four steps up to `max` exactly (0.25 → 2, 2.5 → 1).
    function decimalsFor(max) {
        const step = max / (axisY.tickCount - 1)
        for (let d = 0; d < 3; ++d) {
            const scaled = step * Math.pow(10, d)
            if (Math.abs(scaled - Math.round(scaled)) < 1e-6)
                return d
        }
        return 3
    }

    // Text colours come from the controls' palette (a Label's), so the chart matches the pages in
    // light and dark themes.
    readonly property color textColor: textProbe.color
    readonly property color gridColor: Qt.rgba(textColor.r, textColor.g, textColor.b, 0.12)
    readonly property color axisColor: Qt.rgba(textColor.r, textColor.g, textColor.b, 0.4)

    antialiasing: true
    animationOptions: ChartView.NoAnimation
    backgroundColor: "transparent"
    backgroundRoundness: 0
    plotAreaColor: "transparent"
    titleColor: textColor
    titleFont.pixelSize: 13
    titleFont.bold: true
    legend.visible: false
    margins { left: 4; right: 8; top: 4; bottom: 4 }

    ValueAxis {
        id: axisX
        min: -chart.windowSeconds
        max: 0
        tickCount: 6
        labelFormat: "%d s"
        labelsColor: chart.textColor
        labelsFont.pixelSize: 10
        gridLineColor: chart.gridColor
        color: chart.axisColor
    }
    ValueAxis {
        id: axisY
        min: 0
        max: 1
        tickCount: 5
        labelFormat: "%." + chart.decimalsFor(max) + "f" + (chart.unit ? " " + chart.unit : "")
        labelsColor: chart.textColor
        labelsFont.pixelSize: 10
        gridLineColor: chart.gridColor
        color: chart.axisColor
    }

    Label { id: textProbe; visible: false }

    Instantiator {
        id: rows
        model: chart.channels
        delegate: QtObject {
            required property string channelId
        }
        onObjectAdded: Qt.callLater(chart.rebuild)
        onObjectRemoved: Qt.callLater(chart.rebuild)
    }

    Connections {
        target: chart.source
        enabled: chart.drawing
        ignoreUnknownSignals: true
        function onSampled() { chart.refresh() }
    }
    onMetricsChanged: Qt.callLater(rebuild)
}
