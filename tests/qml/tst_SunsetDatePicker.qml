import QtQuick
import QtTest
import Switchyard.Dashboard

Item {
    width: 600; height: 500

    SunsetDatePicker { id: picker; x: 10; y: 10 }
    SignalSpy { id: pickedSpy; target: picker; signalName: "picked" }

    TestCase {
        name: "SunsetDatePicker"
        when: windowShown

        function init() {
            picker.calendar.close()
            picker.date = ""
            pickedSpy.clear()
        }
        function openAt(date) {
            picker.date = date
            mouseClick(findChild(picker, "sunsetButton"))
            tryCompare(picker.calendar, "opened", true)
        }
        function inCalendar(name) {
            const item = findChild(picker.calendar.contentItem, name)
            verify(item, name)
            return item
        }

        function test_noDateShowsNoSunset() {
            compare(findChild(picker, "sunsetButton").text, "No sunset")
            verify(!findChild(picker, "clearSunset").enabled)
        }

        function test_opensAtTheDateAndPicksAnIsoDate() {
            openAt("2026-05-12")
            const grid = inCalendar("monthGrid")
            compare(grid.year, 2026)
            compare(grid.month, 4)                    // May, 0-based
            mouseClick(inCalendar("day_2026-05-20"))
            compare(picker.date, "2026-05-20")
            compare(pickedSpy.count, 1)
            compare(pickedSpy.signalArguments[0][0], "2026-05-20")
            tryCompare(picker.calendar, "visible", false)
            compare(findChild(picker, "sunsetButton").text, "2026-05-20")
        }

        function test_monthNavigationAcrossTheYear() {
            openAt("2026-12-15")
            mouseClick(inCalendar("nextMonth"))
            const grid = inCalendar("monthGrid")
            compare(grid.year, 2027)
            compare(grid.month, 0)
            mouseClick(inCalendar("day_2027-01-03"))
            compare(picker.date, "2027-01-03")
            openAt("2027-01-03")
            mouseClick(inCalendar("previousMonth"))
            mouseClick(inCalendar("previousMonth"))
            compare(grid.year, 2026)
            compare(grid.month, 10)
            mouseClick(inCalendar("day_2026-11-09"))
            compare(picker.date, "2026-11-09")
        }

        function test_keyboardMovesTheDayAndEnterPicks() {
            openAt("2026-01-31")
            keyClick(Qt.Key_PageDown)                 // 31 Jan + 1 month: the last day of February
            keyClick(Qt.Key_Right)
            keyClick(Qt.Key_Down)
            keyClick(Qt.Key_Return)
            compare(picker.date, "2026-03-08")
        }

        function test_clearGivesNoSunset() {
            picker.date = "2026-05-12"
            mouseClick(findChild(picker, "clearSunset"))
            compare(picker.date, "")
            compare(pickedSpy.signalArguments[0][0], "")
            openAt("2026-05-12")
            mouseClick(inCalendar("noSunset"))
            compare(picker.date, "")
            compare(pickedSpy.count, 2)
            compare(findChild(picker, "sunsetButton").text, "No sunset")
        }

        function test_withoutADateTheCalendarOpensAtToday() {
            openAt("")
            const today = new Date()
            const grid = inCalendar("monthGrid")
            compare(grid.year, today.getFullYear())
            compare(grid.month, today.getMonth())
            const iso = picker.iso(today.getFullYear(), today.getMonth(), 15)
            mouseClick(inCalendar("day_" + iso))
            compare(picker.date, iso)
        }

        function test_parseRefusesImpossibleDates() {
            compare(picker.parse("2026-02-30"), null)
            compare(picker.parse("26-2-3"), null)
            compare(picker.parse("2028-02-29").day, 29)
        }
    }
}
