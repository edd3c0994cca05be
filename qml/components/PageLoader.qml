// A page made the first time it is current, then kept: pages never opened cost no memory,
// delegates or bindings.
import QtQuick

Loader {
    property bool current: false
    active: false
    onCurrentChanged: if (current) active = true
    Component.onCompleted: if (current) active = true
}
