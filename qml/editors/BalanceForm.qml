// The workspace balance (balance, reserved by requests in flight, spent today) and a top-up.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Frame {
    id: form
    property var balance: ({})        // GET /admin/balance
    property string error: ""         // the gateway's refusal of a top-up
    property string notice: ""        // what the last top-up did
    signal topUpRequested(real amount, string note)

    property string localError: ""
    readonly property string shownError: localError.length > 0 ? localError : error
    readonly property string currency: balance.currency ?? ""

    // Cents for large sums; small ones need the fractions of a cent that LLM calls cost.
    function money(text) {
        if (text === undefined || text === null || text === "")
            return "—"
        const amount = Number(text)
        return qsTr("%1 %2").arg(amount.toFixed(Math.abs(amount) >= 10 ? 2 : 4)).arg(currency)
    }

    function topUp() {
        const amount = Number(amountField.text.trim())
        if (amountField.text.trim().length === 0 || !isFinite(amount) || amount <= 0) {
            localError = qsTr("Amount: a positive number.")
            return
        }
        localError = ""
        form.topUpRequested(amount, noteField.text.trim())
    }
    // After a top-up went through.
    function clear() {
        amountField.text = ""
        noteField.text = ""
    }

    padding: 12
    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        Label { text: qsTr("Balance"); font.bold: true; font.pixelSize: 15 }
        RowLayout {
            spacing: 16
            Layout.fillWidth: true
            Figure { objectName: "balanceFigure"; label: qsTr("Balance"); value: form.money(form.balance.balance); Layout.preferredWidth: 1; Layout.fillWidth: true }
            Figure { label: qsTr("Reserved in flight"); value: form.money(form.balance.reserved_in_flight); Layout.preferredWidth: 1; Layout.fillWidth: true }
            Figure { label: qsTr("Spent today"); value: form.money(form.balance.spent_today); Layout.preferredWidth: 1; Layout.fillWidth: true }
        }
        Label {
            visible: form.balance.metered === false
            text: qsTr("Not metered: the configuration sets no starting balance, so no request is refused for money (key spend limits still apply).")
            wrapMode: Text.Wrap
            opacity: 0.7
            Layout.fillWidth: true
        }
        RowLayout {
            spacing: 8
            Layout.fillWidth: true
            Label { text: qsTr("Top up") }
            TextField {
                id: amountField
                objectName: "topUpAmount"
                placeholderText: form.currency.length > 0 ? qsTr("amount, %1").arg(form.currency) : qsTr("amount")
                inputMethodHints: Qt.ImhFormattedNumbersOnly
                horizontalAlignment: TextInput.AlignRight
                Layout.preferredWidth: 130
                onAccepted: form.topUp()
            }
            TextField {
                id: noteField
                objectName: "topUpNote"
                placeholderText: qsTr("note (optional)")
                Layout.preferredWidth: 120
                Layout.minimumWidth: 80
                Layout.fillWidth: true
                onAccepted: form.topUp()
            }
            Button {
                objectName: "topUp"
                text: qsTr("Top up")
                enabled: amountField.text.trim().length > 0
                onClicked: form.topUp()
                Keys.onReturnPressed: form.topUp()
            }
        }
        Label {
            objectName: "balanceError"
            visible: form.shownError.length > 0
            text: form.shownError
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
        Label {
            objectName: "balanceNotice"
            visible: form.notice.length > 0 && form.shownError.length === 0
            text: form.notice
            opacity: 0.75
            Layout.fillWidth: true
        }
    }
}
