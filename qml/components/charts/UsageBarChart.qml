// Daily bars of one usage metric, stacked by name (key or model), over the days of `source`:
// anything with dates, names, values(name, metric) → one number per date, maxDayTotal(metric) and
// a loaded() signal (the UsageHistoryModel). Colours follow the names' order, as in the table.
import QtQml
import QtQuick
import QtQuick.Controls
import QtCharts
import "SeriesColors.js" as SeriesColors

ChartView {
    id: chart
    property var source
    property string metric: "requests"
    property string unit: ""
    // Values are divided by this (1000: thousands of tokens).
    property real scale: 1

    property int barSetCount: 0
    // Labels under the bars: [{index, text}] for every seventh day, counted back from the last.
    property var dayLabels: []
    property int dayCount: 0

    // A new series each time (as HistoryChart does): clearing a StackedBarSeries in place can leave
    // the old sets drawn.
    function rebuild() {
        chart.removeAllSeries()
        chart.barSetCount = 0
        if (!chart.source)
            return
        const dates = chart.source.dates ?? []
        chart.dayCount = dates.length
        // Thirty "MM-dd" labels do not fit under thirty bars: the axis' own are off.
        axisX.categories = dates.map((d, i) => String(i))
        const labels = []
        for (let i = dates.length - 1; i >= 0; i -= 7)
            labels.push({ index: i, text: dates[i].slice(5) })
        chart.dayLabels = labels
        const names = chart.source.names ?? []
        if (names.length === 0)
            return
        const series = chart.createSeries(ChartView.SeriesTypeStackedBar, "usage", axisX, axisY)
        series.barWidth = 0.8
        for (let i = 0; i < names.length; ++i) {
            const set = series.append(names[i], chart.source.values(names[i], chart.metric).map(v => v / chart.scale))
            set.color = SeriesColors.forRow(i)
            set.borderColor = SeriesColors.forRow(i)
        }
        chart.barSetCount = series.count
        // Counts step in whole numbers: at least 4 for the axis' four steps.
        const top = niceCeiling(chart.source.maxDayTotal(chart.metric) / chart.scale)
        axisY.max = chart.metric === "cost" ? top : Math.max(4, top)
    }

    // As HistoryChart's: stable axes whose four steps are round numbers.
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
    margins { left: 4; right: 8; top: 4; bottom: 18 }

    BarCategoryAxis {
        id: axisX
        labelsVisible: false
        gridVisible: false
        color: chart.axisColor
    }
    ValueAxis {
        id: axisY
        min: 0
        max: 1
        tickCount: 5
        // The fewest decimals that show each step exactly (0.0005 steps: 4), so no two labels read alike.
        labelFormat: "%." + chart.decimalsFor(max / (tickCount - 1)) + "f" + (chart.unit ? " " + chart.unit : "")
        labelsColor: chart.textColor
        labelsFont.pixelSize: 10
        gridLineColor: chart.gridColor
        color: chart.axisColor
    }

    Repeater {
        model: chart.dayLabels
        delegate: Label {
            required property var modelData
            x: chart.plotArea.x + (modelData.index + 0.5) * chart.plotArea.width / Math.max(1, chart.dayCount) - width / 2
            y: chart.plotArea.y + chart.plotArea.height + 3
            text: modelData.text
            color: chart.textColor
            font.pixelSize: 10
        }
    }

    function decimalsFor(step) {
        for (let d = 0; d < 6; ++d) {
            const scaled = step * Math.pow(10, d)
            if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled))
                return d
        }
        return 6
    }

    Label { id: textProbe; visible: false }

    Connections {
        target: chart.source
        ignoreUnknownSignals: true
        function onLoaded() { chart.rebuild() }
    }
    onMetricChanged: rebuild()
    onSourceChanged: rebuild()
    Component.onCompleted: rebuild()
}
