// EditorController against the real host (the demo workspace on its worker thread, a temporary
// database): it loads a listing, creates an entry, and a refusal naming a field reaches the
// editor's form — the message under the form and the field marked. Bounded waits only.
#include "EditorController.h"
#include "GatewayHost.h"
#include "support/Waits.h"

#include <QQmlComponent>
#include <QQmlEngine>
#include <QTemporaryDir>
#include <gmock/gmock.h>
#include <memory>

using namespace std::chrono_literals;
using sy::app::EditorController;
using sy::app::GatewayHost;
using sy::test::waitUntil;

namespace {

class EditorControllerTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(dir.isValid());
        sy::app::GatewayStartOptions options;
        options.port = 0;
        options.databasePath = dir.filePath(QStringLiteral("demo.db"));
        host.start(options);
        ASSERT_TRUE(waitUntil([&] { return host.listening() || !host.error().isEmpty(); }, 20s));
        ASSERT_TRUE(host.listening()) << host.error().toStdString();
        engine.addImportPath(QStringLiteral("qrc:/"));
    }

    // Makes `qml` (a Switchyard.Dashboard item) with the host as its `api`.
    QObject *make(const QByteArray &qml)
    {
        QQmlComponent component(&engine);
        component.setData("import QtQuick\nimport Switchyard.Dashboard\n" + qml, QUrl(QStringLiteral("test.qml")));
        made.reset(component.createWithInitialProperties({{"api", QVariant::fromValue(&host)}}));
        EXPECT_NE(made, nullptr) << component.errorString().toStdString();
        return made.get();
    }

    static QStringList ids(const QVariantList &items)
    {
        QStringList out;
        for (const QVariant &item : items)
            out << item.toMap().value(QStringLiteral("id")).toString();
        return out;
    }

    QTemporaryDir dir;
    GatewayHost host;
    QQmlEngine engine;
    std::unique_ptr<QObject> made;
};

TEST_F(EditorControllerTest, LoadsTheListingAndSelectsTheFirstEntry)
{
    auto *controller = qobject_cast<EditorController *>(make("EditorController { listPath: \"/admin/models\"; active: true }"));
    ASSERT_NE(controller, nullptr);
    ASSERT_TRUE(waitUntil([&] { return !controller->items().isEmpty(); }, 10s)) << controller->error().toStdString();
    EXPECT_THAT(ids(controller->items()), ::testing::Contains(QStringLiteral("deepseek/deepseek-v4-flash")));
    EXPECT_EQ(controller->selectedId(), ids(controller->items()).first());
    EXPECT_EQ(controller->selected().toMap().value("id").toString(), controller->selectedId());
    EXPECT_FALSE(controller->busy());
    EXPECT_TRUE(controller->error().isEmpty());
}

TEST_F(EditorControllerTest, SavingANewEntryPostsItSelectsItAndReloads)
{
    auto *controller = qobject_cast<EditorController *>(make("EditorController { listPath: \"/admin/virtual-models\"; active: true }"));
    ASSERT_NE(controller, nullptr);
    ASSERT_TRUE(waitUntil([&] { return !controller->busy(); }, 10s));
    ASSERT_FALSE(ids(controller->items()).contains(QStringLiteral("test/coder")));
    controller->startNew();
    EXPECT_TRUE(controller->creating());
    QJSValue body = engine.newObject();
    body.setProperty("id", "test/coder");
    body.setProperty("primary", "deepseek/deepseek-v4-flash");
    body.setProperty("fallbacks", engine.newArray(0));
    controller->save(body);
    EXPECT_TRUE(controller->busy());
    ASSERT_TRUE(waitUntil([&] { return ids(controller->items()).contains(QStringLiteral("test/coder")); }, 10s))
        << controller->formError().toStdString();
    EXPECT_FALSE(controller->creating());
    EXPECT_EQ(controller->selectedId(), "test/coder");
    EXPECT_TRUE(controller->formError().isEmpty());
}

// The virtual models editor, all of it: a virtual model pointing at itself is refused by the
// gateway, and the form shows the reason and marks the field the refusal names.
TEST_F(EditorControllerTest, ARefusalNamingAFieldShowsOnTheForm)
{
    QObject *editor = make("VirtualModelsEditor { width: 900; height: 600; active: true }");
    ASSERT_NE(editor, nullptr);
    auto *controller = editor->findChild<EditorController *>();
    ASSERT_NE(controller, nullptr);
    ASSERT_TRUE(waitUntil([&] { return !controller->busy(); }, 10s));
    ASSERT_TRUE(QMetaObject::invokeMethod(editor, "startNew"));
    QJSValue body = engine.newObject();
    body.setProperty("id", "loop");
    body.setProperty("primary", "loop");
    body.setProperty("fallbacks", engine.newArray(0));
    ASSERT_TRUE(QMetaObject::invokeMethod(editor, "save", Q_ARG(QVariant, QVariant::fromValue(body))));
    ASSERT_TRUE(waitUntil([&] { return !controller->formError().isEmpty(); }, 10s));
    EXPECT_GE(controller->formErrorStatus(), 400);
    EXPECT_THAT(controller->formErrorField().toStdString(), ::testing::HasSubstr("primary"));
    EXPECT_TRUE(controller->dirty()) << "the form keeps what was typed";

    QObject *form = editor->findChild<QObject *>(QStringLiteral("virtualModelForm"));
    ASSERT_NE(form, nullptr);
    EXPECT_EQ(form->property("field").toString(), "primary");
    QObject *shown = form->findChild<QObject *>(QStringLiteral("formError"));
    ASSERT_NE(shown, nullptr);
    EXPECT_TRUE(shown->property("visible").toBool());
    EXPECT_EQ(shown->property("text").toString(), controller->formError());
    EXPECT_FALSE(ids(controller->items()).contains(QStringLiteral("loop")));
}

} // namespace
