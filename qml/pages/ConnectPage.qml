// Connect a client: pick a coding tool or SDK (GET /admin/connect) and a gateway key, and get the
// ready-to-paste setup with this gateway's URL (GET /admin/connect?client=&secret=&model=), with a
// Copy button. Key secrets are kept only as hashes, so the key is pasted here, is the demo key,
// or is made for this client on the spot (POST /admin/keys answers with its secret once). A
// client whose API format is not served yet says so instead of giving a setup that fails.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard
import "../editors/AdminReply.js" as AdminReply

Page {
    id: page
    required property var api
    property bool active: false
    // The key to start with (the demo key; "" outside the demo) and the models to offer.
    property string defaultKey: ""
    property var modelIds: []

    property var clients: []
    property string clientId: ""
    property string error: ""
    property string keyNotice: ""
    property var setup: null               // {client, title, supported, text}

    property bool completed: false
    onActiveChanged: if (active && completed) reload()
    Component.onCompleted: { completed = true; if (active) reload() }

    function reload() {
        api.admin("GET", "/admin/connect", undefined, (status, reply) => {
            error = AdminReply.errorText(status, reply)
            if (!AdminReply.ok(status))
                return
            clients = (reply && Array.isArray(reply.clients)) ? reply.clients : []
            if (clientId.length === 0 && clients.length > 0)
                choose(clients[0].id)
            else
                fetchSetup()
        })
    }

    function choose(id) {
        clientId = id
        fetchSetup()
    }

    function fetchSetup() {
        if (clientId.length === 0)
            return
        let target = "/admin/connect?client=" + encodeURIComponent(clientId)
                     + "&secret=" + encodeURIComponent(keyField.text.trim())
        if (modelBox.currentIndex > 0)
            target += "&model=" + encodeURIComponent(modelBox.currentText)
        const wanted = target
        pendingTarget = target
        api.admin("GET", target, undefined, (status, reply) => {
            if (wanted !== pendingTarget)
                return             // an older answer: the choice changed meanwhile
            error = AdminReply.errorText(status, reply)
            setup = AdminReply.ok(status) ? reply : null
        })
    }
    property string pendingTarget: ""

    // A new gateway key named after the client; its secret goes into the key field.
    function makeKey() {
        keyNotice = ""
        const base = clientId.replace(/[^A-Za-z0-9._-]/g, "-") || "client"
        const name = base + "-" + Qt.formatDateTime(new Date(), "yyyyMMdd-hhmmss")
        api.admin("POST", "/admin/keys", { name: name }, (status, reply) => {
            if (!AdminReply.ok(status)) {
                error = AdminReply.errorText(status, reply)
                return
            }
            keyField.text = String(reply.secret ?? "")
            keyNotice = qsTr("Key “%1” made. Its secret is in the setup below and is not shown again once you leave.").arg(name)
            fetchSetup()
        })
    }

    function copySetup() {
        setupText.selectAll()
        setupText.copy()
        setupText.deselect()
        copied = true
    }
    property bool copied: false
    onSetupChanged: copied = false

    padding: 12

    RowLayout {
        anchors.fill: parent
        spacing: 12

        ListView {
            id: clientList
            objectName: "clientList"
            Layout.preferredWidth: 200
            Layout.fillHeight: true
            model: page.clients
            keyNavigationEnabled: true
            activeFocusOnTab: true
            clip: true
            delegate: ItemDelegate {
                required property var modelData
                objectName: "client_" + modelData.id
                width: ListView.view.width
                text: modelData.title
                highlighted: modelData.id === page.clientId
                font.bold: highlighted
                onClicked: page.choose(modelData.id)
            }
        }

        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 8

            Label {
                text: page.setup ? page.setup.title : qsTr("Connect a client")
                font.bold: true
                font.pixelSize: 15
            }
            GridLayout {
                columns: 3
                columnSpacing: 10
                rowSpacing: 6
                Layout.fillWidth: true
                Label { text: qsTr("Gateway key") }
                TextField {
                    id: keyField
                    objectName: "connectKey"
                    text: page.defaultKey
                    placeholderText: qsTr("sk-… (a key of this gateway)")
                    Layout.fillWidth: true
                    onEditingFinished: page.fetchSetup()
                }
                Button { objectName: "makeKeyButton"; text: qsTr("New key for this client"); onClicked: page.makeKey() }
                Label { text: qsTr("Model") }
                ComboBox {
                    id: modelBox
                    objectName: "connectModel"
                    model: [qsTr("(the client's default)")].concat(page.modelIds)
                    Layout.fillWidth: true
                    onActivated: page.fetchSetup()
                }
                Item {}
            }
            Label {
                objectName: "connectKeyNotice"
                visible: page.keyNotice.length > 0
                text: page.keyNotice
                wrapMode: Text.Wrap
                opacity: 0.8
                Layout.fillWidth: true
            }
            Label {
                objectName: "connectError"
                visible: page.error.length > 0
                text: page.error
                color: "#d0473b"
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
            Label {
                objectName: "unsupportedNotice"
                visible: page.setup !== null && page.setup.supported === false
                text: qsTr("Not served yet: this setup would fail against this gateway.")
                color: "#c27c0e"
                font.bold: true
                wrapMode: Text.Wrap
                Layout.fillWidth: true
            }
            ScrollView {
                Layout.fillWidth: true
                Layout.fillHeight: true
                TextArea {
                    id: setupText
                    objectName: "setupText"
                    readOnly: true
                    selectByMouse: true
                    wrapMode: TextEdit.Wrap
                    font.family: "monospace"
                    background: Rectangle { color: palette.base; border.color: palette.mid; radius: 3 }
                    text: page.setup ? String(page.setup.text ?? "") : ""
                    placeholderText: qsTr("Pick a client on the left.")
                }
            }
            RowLayout {
                Button {
                    objectName: "copySetupButton"
                    text: qsTr("Copy")
                    enabled: setupText.text.length > 0
                    highlighted: true
                    onClicked: page.copySetup()
                }
                Label { visible: page.copied; text: qsTr("Copied to the clipboard."); opacity: 0.8 }
            }
        }
    }
}
