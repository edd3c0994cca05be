// Configure: every editor of the workspace — keys, channels, models, virtual models, the
// workspace itself (default model, balance, settings) and import/export of the configuration
// file. Editors talk to the gateway only through `api.admin(method, target, body, callback)` (the
// admin API, in-process; docs/admin-api.md), so the gateway validates every change as a whole and
// an editor shows its refusal with the reason.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Switchyard.Dashboard

Page {
    id: page
    // Anything with admin(method, target, body, callback): the GatewayHost, or a test double.
    required property var api
    // The desktop app's start at login (WorkspaceEditor); null where there is none.
    property var desktop: null
    property alias currentSection: sections.currentIndex

    padding: 12

    RowLayout {
        anchors.fill: parent
        spacing: 12

        ListView {
            id: sections
            objectName: "configureSections"
            Layout.preferredWidth: 170
            Layout.fillHeight: true
            keyNavigationEnabled: true
            activeFocusOnTab: true
            model: [qsTr("Keys"), qsTr("Channels"), qsTr("Models"), qsTr("Virtual models"), qsTr("Workspace"), qsTr("Import / export")]
            delegate: ItemDelegate {
                required property int index
                required property string modelData
                objectName: "section_" + index
                width: ListView.view.width
                text: modelData
                highlighted: ListView.isCurrentItem
                font.bold: highlighted
                onClicked: sections.currentIndex = index
            }
        }

        StackLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            currentIndex: sections.currentIndex

            KeysEditor { objectName: "keysEditor"; api: page.api; active: page.visible && sections.currentIndex === 0 }
            ChannelsEditor { objectName: "channelsEditor"; api: page.api; active: page.visible && sections.currentIndex === 1 }
            ModelsEditor { objectName: "modelsEditor"; api: page.api; active: page.visible && sections.currentIndex === 2 }
            VirtualModelsEditor { objectName: "virtualModelsEditor"; api: page.api; active: page.visible && sections.currentIndex === 3 }
            WorkspaceEditor { objectName: "workspaceEditor"; api: page.api; desktop: page.desktop; active: page.visible && sections.currentIndex === 4 }
            ImportExportEditor { objectName: "importExportEditor"; api: page.api; active: page.visible && sections.currentIndex === 5 }
        }
    }
}
