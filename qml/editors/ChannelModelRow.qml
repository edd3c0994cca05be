// One model a channel serves: the model id (chosen from the models, or typed: a channel may
// declare a new model), the name sent upstream, and the price per 1M prompt and completion tokens.
// A delegate of a ListModel with roles modelId, upstream, prompt, completion (text as typed); each
// edit goes back through edited(role, value).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

RowLayout {
    id: row
    required property int index
    required property string modelId
    required property string upstream
    required property string prompt
    required property string completion
    property var choices: []
    property string markedField: ""        // "id", "upstream", "price.prompt", … named by the gateway
    signal edited(string role, string value)
    signal removeRequested()
    signal submitted()                     // Enter in the model box

    function marks(name) { return markedField === name || markedField.startsWith(name + ".") }

    spacing: 6
    ModelIdBox {
        objectName: "rowModel_" + row.index
        value: row.modelId
        choices: row.choices
        Layout.preferredWidth: 230
        palette.text: row.marks("id") ? "#d0473b" : row.palette.text
        onEdited: (value) => row.edited("modelId", value)
        onSubmitted: row.submitted()
    }
    TextField {
        objectName: "rowUpstream_" + row.index
        text: row.upstream
        placeholderText: qsTr("same as the id")
        color: row.marks("upstream") ? "#d0473b" : palette.text
        Layout.fillWidth: true
        Layout.minimumWidth: 110
        onTextEdited: row.edited("upstream", text)
    }
    TextField {
        objectName: "rowPrompt_" + row.index
        text: row.prompt
        placeholderText: "0"
        inputMethodHints: Qt.ImhFormattedNumbersOnly
        color: row.marks("price.prompt") ? "#d0473b" : palette.text
        Layout.preferredWidth: 80
        onTextEdited: row.edited("prompt", text)
    }
    TextField {
        objectName: "rowCompletion_" + row.index
        text: row.completion
        placeholderText: "0"
        inputMethodHints: Qt.ImhFormattedNumbersOnly
        color: row.marks("price.completion") ? "#d0473b" : palette.text
        Layout.preferredWidth: 80
        onTextEdited: row.edited("completion", text)
    }
    ToolButton {
        objectName: "rowRemove_" + row.index
        text: "×"
        ToolTip.text: qsTr("Stop serving this model on the channel")
        ToolTip.visible: hovered
        onClicked: row.removeRequested()
    }
}
