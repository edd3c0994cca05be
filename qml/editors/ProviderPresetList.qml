// The provider presets (GET /admin/presets) as a searchable list: name, API format, base URL and
// whether it runs locally. Typing filters by name, id or URL; chosen(preset) on click or Enter.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ColumnLayout {
    id: presetList
    property var presets: []               // entries of GET /admin/presets' `presets`
    property string selectedId: ""
    signal chosen(var preset)

    readonly property var shown: {
        const q = search.text.trim().toLowerCase()
        if (q.length === 0)
            return presets
        return presets.filter(p => [p.id, p.name, p.base_url, p.format].some(v => String(v ?? "").toLowerCase().indexOf(q) >= 0))
    }

    spacing: 6

    TextField {
        id: search
        objectName: "presetSearch"
        placeholderText: qsTr("Search providers (name, format, URL)")
        Layout.fillWidth: true
        Keys.onDownPressed: list.forceActiveFocus()
        Keys.onReturnPressed: if (presetList.shown.length === 1) presetList.chosen(presetList.shown[0])
    }

    ListView {
        id: list
        objectName: "presetList"
        model: presetList.shown
        clip: true
        keyNavigationEnabled: true
        Layout.fillWidth: true
        Layout.fillHeight: true
        ScrollBar.vertical: ScrollBar {}
        delegate: ItemDelegate {
            required property var modelData
            required property int index
            objectName: "preset_" + modelData.id
            width: ListView.view.width
            highlighted: modelData.id === presetList.selectedId
            onClicked: presetList.chosen(modelData)
            Keys.onReturnPressed: presetList.chosen(modelData)
            contentItem: RowLayout {
                spacing: 10
                Label { text: modelData.name; font.bold: true; Layout.preferredWidth: 170; elide: Text.ElideRight }
                Label { text: modelData.format; opacity: 0.75; Layout.preferredWidth: 80 }
                Label { text: modelData.base_url; opacity: 0.75; elide: Text.ElideRight; Layout.fillWidth: true }
                Label {
                    text: modelData.local ? qsTr("local, no key") : (modelData.needs_key === false ? qsTr("no key") : "")
                    opacity: 0.75
                    font.pixelSize: 11
                }
            }
        }
        Label {
            anchors.centerIn: parent
            visible: list.count === 0
            text: presetList.presets.length === 0 ? qsTr("Loading the presets…") : qsTr("No provider matches “%1”").arg(search.text)
            opacity: 0.6
        }
    }
}
