// Start at login: the XDG autostart entry is written, read back and removed, survives a restart
// (a new Autostart reads the file), honours the session's own "off" (Hidden=true), quotes the
// program as the desktop entry specification asks, and a directory it cannot write to leaves
// the switch off with the reason.
#include "Autostart.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <gmock/gmock.h>

using sy::app::Autostart;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

QString readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

class AutostartTest : public ::testing::Test {
protected:
    QString entry() const { return dir.filePath(QStringLiteral("autostart/switchyard.desktop")); }
    QTemporaryDir dir;
};

TEST_F(AutostartTest, OffWithoutAnEntry)
{
    Autostart autostart(QStringLiteral("/usr/bin/switchyard"), entry());
    EXPECT_FALSE(autostart.startAtLogin());
    EXPECT_FALSE(autostart.startHidden());
    EXPECT_TRUE(autostart.error().isEmpty());
}

TEST_F(AutostartTest, SwitchingOnWritesAnEntryThatStartsTheProgram)
{
    Autostart autostart(QStringLiteral("/usr/bin/switchyard"), entry());
    QSignalSpy changed(&autostart, &Autostart::changed);
    autostart.setStartAtLogin(true);
    EXPECT_TRUE(autostart.startAtLogin());
    EXPECT_EQ(changed.count(), 1);
    const QString text = readAll(entry());
    EXPECT_THAT(text.toStdString(), HasSubstr("[Desktop Entry]\nType=Application\n"));
    EXPECT_THAT(text.toStdString(), HasSubstr("\nExec=/usr/bin/switchyard\n"));
    EXPECT_THAT(text.toStdString(), HasSubstr("\nIcon=switchyard\n"));
}

TEST_F(AutostartTest, StartHiddenAddsTheOptionAndSurvivesARestart)
{
    {
        Autostart autostart(QStringLiteral("/usr/bin/switchyard"), entry());
        autostart.setStartHidden(true);
        EXPECT_FALSE(autostart.startHidden()) << "no entry yet: nothing starts hidden";
        autostart.setStartAtLogin(true);
        autostart.setStartHidden(true);
        EXPECT_TRUE(autostart.startHidden());
    }
    EXPECT_THAT(readAll(entry()).toStdString(), HasSubstr("\nExec=/usr/bin/switchyard --hidden\n"));
    Autostart restarted(QStringLiteral("/usr/bin/switchyard"), entry());
    EXPECT_TRUE(restarted.startAtLogin());
    EXPECT_TRUE(restarted.startHidden());

    restarted.setStartHidden(false);
    EXPECT_THAT(readAll(entry()).toStdString(), HasSubstr("\nExec=/usr/bin/switchyard\n"));
    restarted.setStartAtLogin(false);
    EXPECT_FALSE(QFile::exists(entry()));
    EXPECT_FALSE(restarted.startAtLogin());
    EXPECT_FALSE(restarted.startHidden());
}

TEST_F(AutostartTest, AnEntrySwitchedOffByTheSessionReadsAsOff)
{
    ASSERT_TRUE(QDir().mkpath(dir.filePath(QStringLiteral("autostart"))));
    QFile file(entry());
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("[Desktop Entry]\nType=Application\nName=Switchyard\nExec=switchyard --hidden\nHidden=true\n");
    file.close();
    Autostart autostart(QStringLiteral("switchyard"), entry());
    EXPECT_FALSE(autostart.startAtLogin());
    EXPECT_FALSE(autostart.startHidden());
    autostart.setStartAtLogin(true);
    EXPECT_TRUE(autostart.startAtLogin());
    EXPECT_THAT(readAll(entry()).toStdString(), Not(HasSubstr("Hidden=true")));
}

TEST_F(AutostartTest, AProgramPathWithSpacesIsQuoted)
{
    const QString text = Autostart::entryText(QStringLiteral("/opt/My Apps/switch$yard"), true);
    EXPECT_THAT(text.toStdString(), HasSubstr("\nExec=\"/opt/My Apps/switch\\$yard\" --hidden\n"));
}

TEST_F(AutostartTest, TheEntryIsAValidDesktopFile)
{
    const QString validator = QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate"));
    if (validator.isEmpty())
        GTEST_SKIP() << "desktop-file-validate is not installed (desktop-file-utils)";
    Autostart autostart(QStringLiteral("/usr/bin/switchyard"), entry());
    autostart.setStartAtLogin(true);
    autostart.setStartHidden(true);
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(validator, {entry()});
    ASSERT_TRUE(process.waitForFinished(30'000));
    EXPECT_EQ(process.exitCode(), 0) << process.readAll().toStdString();
    EXPECT_TRUE(process.readAll().isEmpty());
}

TEST_F(AutostartTest, ADirectoryThatCannotBeCreatedLeavesTheSwitchOffWithTheReason)
{
    // A file where the autostart directory should be.
    QFile blocker(dir.filePath(QStringLiteral("autostart")));
    ASSERT_TRUE(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    Autostart autostart(QStringLiteral("/usr/bin/switchyard"), entry());
    autostart.setStartAtLogin(true);
    EXPECT_FALSE(autostart.startAtLogin());
    EXPECT_THAT(autostart.error().toStdString(), HasSubstr(dir.filePath(QStringLiteral("autostart")).toStdString()));
}

TEST(AutostartPathTest, TheDefaultEntryIsInTheXdgConfigHome)
{
    QTemporaryDir home;
    const bool wasSet = qEnvironmentVariableIsSet("XDG_CONFIG_HOME");
    const QByteArray saved = qgetenv("XDG_CONFIG_HOME");
    qputenv("XDG_CONFIG_HOME", home.path().toUtf8());
    EXPECT_EQ(Autostart::defaultEntryPath(), home.filePath(QStringLiteral("autostart/switchyard.desktop")));
    if (wasSet)
        qputenv("XDG_CONFIG_HOME", saved);
    else
        qunsetenv("XDG_CONFIG_HOME");
}

} // namespace
