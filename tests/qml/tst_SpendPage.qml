import QtQuick
import QtTest
import Switchyard.Dashboard

Item {
    width: 1280; height: 800

    QtObject {
        id: api
        property var calls: []
        property var answers: ({})
        function admin(method, target, body, callback) {
            calls = calls.concat([{ method: method, target: target }])
            const answer = answers[method + " " + target] ?? [404, { error: { message: "not found: " + target } }]
            callback(answer[0], answer[1])
        }
    }
    // The history model's interface on a ListModel: what the page reads of UsageHistoryModel.
    ListModel {
        id: history
        property string by: ""
        property var dates: []
        property var names: []
        property real totalRequests: 0
        property real totalTokens: 0
        property real totalCost: 0
        property var reply: null
        signal loaded()
        function load(r) {
            reply = r
            clear()
            const days = (r && r.days) || []
            dates = days.map(d => d.date)
            const seen = []
            totalRequests = 0; totalTokens = 0; totalCost = 0
            for (const d of days) {
                for (const row of d.rows) {
                    append({ date: d.date, name: row.name, requests: row.requests, promptTokens: row.prompt_tokens,
                             completionTokens: row.completion_tokens, cost: row.cost })
                    if (seen.indexOf(row.name) < 0) seen.push(row.name)
                    totalRequests += row.requests; totalTokens += row.prompt_tokens + row.completion_tokens; totalCost += row.cost
                }
            }
            names = seen
            loaded()
        }
        function values(name, metric) {
            return ((reply && reply.days) || []).map(d => d.rows.filter(r => r.name === name).reduce((s, r) => s + r[metric === "tokens" ? "prompt_tokens" : metric], 0))
        }
        function maxDayTotal(metric) { return 10 }
    }
    QtObject {
        id: files
        property var saved: []
        property string chosen: "/tmp/usage.csv"
        function chooseSaveFile(title, name, filter) { return chosen }
        function saveText(path, text) { saved = saved.concat([{ path: path, text: text }]); return "" }
    }

    SpendPage {
        id: page
        anchors.fill: parent
        api: api
        history: history
        files: files
    }

    readonly property var byKey: { "by": "key", "currency": "EUR", "days": [
        { date: "2026-11-30", rows: [{ name: "ide", requests: 4, prompt_tokens: 400, completion_tokens: 40, cost: 0.5 },
                                     { name: "agent", requests: 2, prompt_tokens: 200, completion_tokens: 20, cost: 0.25 }] },
        { date: "2026-12-01", rows: [{ name: "ide", requests: 1, prompt_tokens: 100, completion_tokens: 10, cost: 0.125 }] }] }
    readonly property var byModel: { "by": "model", "days": [
        { date: "2026-12-01", rows: [{ name: "deepseek/deepseek-v4-flash", requests: 7, prompt_tokens: 700, completion_tokens: 70, cost: 0.875 }] }] }

    TestCase {
        name: "SpendPage"
        when: windowShown

        function init() {
            page.active = false
            page.by = "key"
            api.calls = []
            api.answers = {
                "GET /admin/usage/history?days=30&by=key": [200, byKey],
                "GET /admin/usage/history?days=30&by=model": [200, byModel],
                "GET /admin/usage/history?days=30&by=key&format=csv": [200, "date,name,requests\n2026-12-01,ide,1\n"],
                "GET /admin/usage/history?days=30&by=model&format=csv": [200, "date,name,requests\n2026-12-01,deepseek/deepseek-v4-flash,7\n"]
            }
            files.saved = []
            page.active = true
        }
        function child(name) {
            const item = findChild(page, name)
            verify(item, name)
            return item
        }

        function test_chartsAndTableShowTheDaysByKey() {
            compare(api.calls[api.calls.length - 1].target, "/admin/usage/history?days=30&by=key")
            tryCompare(child("spendTable"), "count", 3)
            compare(child("requestsByDay").barSetCount, 2)
            compare(child("costByDay").barSetCount, 2)
            verify(child("spendTotals").text.indexOf("7 requests") === 0, child("spendTotals").text)
            verify(child("spendTotals").text.endsWith("0.8750 EUR"), child("spendTotals").text)
        }

        function test_byModelAsksForTheModelsHistory() {
            verify(child("byKey").font.bold && !child("byModel").font.bold)
            mouseClick(child("byModel"))
            compare(api.calls[api.calls.length - 1].target, "/admin/usage/history?days=30&by=model")
            verify(child("byModel").font.bold && !child("byKey").font.bold)
            tryCompare(child("spendTable"), "count", 1)
            compare(child("tokensByDay").barSetCount, 1)
        }

        function test_csvExportSavesTheApisCsvToTheChosenFile() {
            mouseClick(child("byModel"))
            mouseClick(child("exportCsv"))
            compare(files.saved.length, 1)
            compare(files.saved[0].path, "/tmp/usage.csv")
            compare(files.saved[0].text, "date,name,requests\n2026-12-01,deepseek/deepseek-v4-flash,7\n")
            verify(child("spendNotice").text.indexOf("/tmp/usage.csv") >= 0)
        }

        function test_aCancelledDialogSavesNothing() {
            files.chosen = ""
            mouseClick(child("exportCsv"))
            compare(files.saved.length, 0)
            files.chosen = "/tmp/usage.csv"
        }

        function test_anErrorEmptiesTheTableAndIsShown() {
            page.active = false
            api.answers["GET /admin/usage/history?days=30&by=key"] = [500, { error: { message: "the ledger is unreadable" } }]
            page.active = true
            compare(child("spendError").text, "the ledger is unreadable")
            compare(child("spendTable").count, 0)
        }
    }
}
