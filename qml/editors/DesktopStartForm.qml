// On this computer: start the desktop app at login, and hidden in the tray. `desktop` is anything
// with startAtLogin, startHidden (read/write), error and entryPath: the app's Autostart, or a test
// double. Writes go straight to it; it reads its entry back, so the switches show what is on disk.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: form
    required property var desktop   // may turn null (the object is gone): reads as off

    padding: 12

    ColumnLayout {
        anchors.fill: parent
        spacing: 8
        Label { text: qsTr("On this computer"); font.bold: true; font.pixelSize: 15 }
        Switch {
            objectName: "startAtLogin"
            text: qsTr("Start at login")
            checked: form.desktop?.startAtLogin ?? false
            onToggled: { form.desktop.startAtLogin = checked; checked = Qt.binding(() => form.desktop?.startAtLogin ?? false) }
        }
        Switch {
            objectName: "startHidden"
            text: qsTr("Start hidden in the tray")
            enabled: form.desktop?.startAtLogin ?? false
            checked: form.desktop?.startHidden ?? false
            onToggled: { form.desktop.startHidden = checked; checked = Qt.binding(() => form.desktop?.startHidden ?? false) }
        }
        Label {
            text: qsTr("The gateway keeps serving while the window is hidden; the tray icon shows it again.")
            wrapMode: Text.Wrap
            opacity: 0.7
            Layout.fillWidth: true
        }
        Label {
            objectName: "desktopError"
            visible: text.length > 0
            text: form.desktop?.error ?? ""
            color: "#d0473b"
            wrapMode: Text.Wrap
            Layout.fillWidth: true
        }
    }
}
