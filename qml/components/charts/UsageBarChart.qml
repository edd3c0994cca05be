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
    readonly property int barSetCount: bars.count

    function rebuild() {
        bars.clear()
        if (!chart.source)
            return
        const dates = chart.source.dates ?? []
        // "2026-11-30" → "30"; the first day of a month and the first bar also name the month.
        axisX.categories = dates.map((d, i) => (i === 0 || d.slice(8) === "01") ? d.slice(5) : d.slice(8))
        const names = chart.source.names ?? []
        for (let i = 0; i < names.length; ++i) {
            const set = bars.append(names[i], chart.source.values(names[i], chart.metric))
            set.color = SeriesColors.forRow(i)
            set.borderColor = SeriesColors.forRow(i)
        }
        // Counts step in whole numbers: at least 4 for the axis' four steps.
        const top = niceCeiling(chart.source.maxDayTotal(chart.metric))
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
    margins { left: 4; right: 8; top: 4; bottom: 4 }

    StackedBarSeries {
        id: bars
        barWidth: 0.8
        axisX: BarCategoryAxis {
            id: axisX
            labelsColor: chart.textColor
            labelsFont.pixelSize: 9
            gridVisible: false
            color: chart.axisColor
        }
        axisY: ValueAxis {
            id: axisY
            min: 0
            max: 1
            tickCount: 5
            // Whole numbers for counts; money keeps the decimals its steps need.
            labelFormat: (chart.metric !== "cost" || max >= 40 ? "%.0f" : max >= 4 ? "%.1f" : max >= 0.4 ? "%.2f" : "%.3f")
                         + (chart.unit ? " " + chart.unit : "")
            labelsColor: chart.textColor
            labelsFont.pixelSize: 10
            gridLineColor: chart.gridColor
            color: chart.axisColor
        }
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
