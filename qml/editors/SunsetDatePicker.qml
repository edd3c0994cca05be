// A model's sunset date: a button showing the date (or "No sunset") that opens a small calendar
// with month navigation and a "No sunset" choice. `date` is an ISO date "YYYY-MM-DD", or "" for
// none. Qt 6.4 has no date picker; MonthGrid lays out the days. In the calendar the arrow keys
// move the day, Page Up/Down the month, Enter picks.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

RowLayout {
    id: picker
    property string date: ""               // set, not bound: picking assigns it
    property bool marked: false            // the gateway named this field as the problem
    signal picked(string date)             // the user chose a date, or "" for no sunset
    readonly property alias calendar: popup

    // The day the calendar shows and moves; months are 0-based as in MonthGrid.
    property int cursorYear: 2000
    property int cursorMonth: 0
    property int cursorDay: 1

    function pad(n) { return (n < 10 ? "0" : "") + n }
    function iso(year, month, day) { return year + "-" + pad(month + 1) + "-" + pad(day) }
    // {year, month (0-based), day} of a real ISO date, or null.
    function parse(text) {
        const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
        if (!m)
            return null
        const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
        if (d.getFullYear() !== Number(m[1]) || d.getMonth() !== Number(m[2]) - 1 || d.getDate() !== Number(m[3]))
            return null
        return { year: d.getFullYear(), month: d.getMonth(), day: d.getDate() }
    }
    function moveCursor(days, months) {
        let d = new Date(cursorYear, cursorMonth, cursorDay)
        if (months !== 0) {
            // Keep the day where the month has it, else its last day (31 Jan + 1 month: 28/29 Feb).
            const last = new Date(cursorYear, cursorMonth + months + 1, 0).getDate()
            d = new Date(cursorYear, cursorMonth + months, Math.min(cursorDay, last))
        }
        d.setDate(d.getDate() + days)
        cursorYear = d.getFullYear()
        cursorMonth = d.getMonth()
        cursorDay = d.getDate()
    }
    function choose(text) {
        date = text
        popup.close()
        picked(text)
    }
    function open() {
        const shown = parse(date)
        const today = new Date()
        cursorYear = shown ? shown.year : today.getFullYear()
        cursorMonth = shown ? shown.month : today.getMonth()
        cursorDay = shown ? shown.day : today.getDate()
        popup.open()
    }

    spacing: 4
    Button {
        id: opener
        objectName: "sunsetButton"
        text: picker.date.length > 0 ? picker.date : qsTr("No sunset")
        palette.buttonText: picker.marked ? "#d0473b" : picker.palette.buttonText
        Layout.preferredWidth: 140
        onClicked: picker.open()
        Keys.onSpacePressed: picker.open()
    }
    ToolButton {
        objectName: "clearSunset"
        enabled: picker.date.length > 0
        opacity: enabled ? 1 : 0           // keeps its place, so nothing moves
        text: "×"
        ToolTip.text: qsTr("No sunset")
        ToolTip.visible: hovered
        onClicked: picker.choose("")
    }

    Popup {
        id: popup
        objectName: "sunsetPopup"
        y: opener.height + 2
        padding: 8
        margins: 6          // stays inside the window
        modal: false
        focus: true
        closePolicy: Popup.CloseOnEscape | Popup.CloseOnPressOutsideParent

        contentItem: ColumnLayout {
            spacing: 4
            focus: true
            Keys.onLeftPressed: picker.moveCursor(-1, 0)
            Keys.onRightPressed: picker.moveCursor(1, 0)
            Keys.onUpPressed: picker.moveCursor(-7, 0)
            Keys.onDownPressed: picker.moveCursor(7, 0)
            Keys.onPressed: (event) => {
                if (event.key === Qt.Key_PageUp)
                    picker.moveCursor(0, -1)
                else if (event.key === Qt.Key_PageDown)
                    picker.moveCursor(0, 1)
                else if (event.key === Qt.Key_Return || event.key === Qt.Key_Enter)
                    picker.choose(picker.iso(picker.cursorYear, picker.cursorMonth, picker.cursorDay))
                else
                    return
                event.accepted = true
            }

            RowLayout {
                Layout.fillWidth: true
                ToolButton {
                    objectName: "previousMonth"
                    text: "‹"
                    focusPolicy: Qt.NoFocus
                    onClicked: picker.moveCursor(0, -1)
                }
                Label {
                    objectName: "monthTitle"
                    text: grid.title
                    font.bold: true
                    horizontalAlignment: Text.AlignHCenter
                    Layout.fillWidth: true
                }
                ToolButton {
                    objectName: "nextMonth"
                    text: "›"
                    focusPolicy: Qt.NoFocus
                    onClicked: picker.moveCursor(0, 1)
                }
            }
            DayOfWeekRow {
                locale: grid.locale
                Layout.fillWidth: true
            }
            MonthGrid {
                id: grid
                objectName: "monthGrid"
                month: picker.cursorMonth
                year: picker.cursorYear
                spacing: 2
                Layout.fillWidth: true
                delegate: AbstractButton {
                    id: day
                    required property var model
                    readonly property string isoDate: picker.iso(model.year, model.month, model.day)
                    readonly property bool chosen: isoDate === picker.date
                    readonly property bool cursor: model.year === picker.cursorYear && model.month === picker.cursorMonth
                                                   && model.day === picker.cursorDay
                    objectName: "day_" + isoDate
                    implicitWidth: 30
                    implicitHeight: 26
                    focusPolicy: Qt.NoFocus
                    opacity: model.month === grid.month ? 1 : 0.4
                    onClicked: picker.choose(isoDate)
                    background: Rectangle {
                        radius: 3
                        color: day.chosen ? day.palette.highlight : (day.hovered ? day.palette.midlight : "transparent")
                        border.color: day.palette.highlight
                        border.width: day.cursor ? 1 : 0
                    }
                    contentItem: Text {
                        text: day.model.day
                        font.bold: day.model.today
                        horizontalAlignment: Text.AlignHCenter
                        verticalAlignment: Text.AlignVCenter
                        color: day.chosen ? day.palette.highlightedText : day.palette.windowText
                    }
                }
            }
            RowLayout {
                Layout.fillWidth: true
                Button {
                    objectName: "noSunset"
                    text: qsTr("No sunset")
                    focusPolicy: Qt.NoFocus
                    onClicked: picker.choose("")
                }
                Item { Layout.fillWidth: true }
                Button {
                    objectName: "closeCalendar"
                    text: qsTr("Close")
                    focusPolicy: Qt.NoFocus
                    onClicked: popup.close()
                }
            }
        }
    }
}
