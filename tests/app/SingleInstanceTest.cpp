// One desktop app per user: the first claim owns the runtime directory's lock and socket, a later
// one hands over (the owner is asked to show its window) and names the owner's process, a crashed
// owner's lock and socket are taken over. Then the real program twice: the second start says the
// first one is running and ends, and a killed first start does not lock the next one out.
#include "SingleInstance.h"
#include "support/Waits.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocalServer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <gmock/gmock.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace std::chrono_literals;
using sy::app::SingleInstance;
using sy::test::waitUntil;
using ::testing::HasSubstr;

namespace {

TEST(SingleInstanceTest, TheFirstClaimOwnsTheApp)
{
    QTemporaryDir dir;
    SingleInstance first(dir.filePath(QStringLiteral("switchyard")));
    EXPECT_EQ(first.claim(), SingleInstance::Role::Primary) << first.error().toStdString();
    EXPECT_TRUE(QFileInfo::exists(dir.filePath(QStringLiteral("switchyard/app.lock"))));
    EXPECT_TRUE(QFileInfo::exists(dir.filePath(QStringLiteral("switchyard/app.socket"))));
    EXPECT_EQ(QFileInfo(dir.filePath(QStringLiteral("switchyard"))).permissions() & (QFile::ReadGroup | QFile::ReadOther),
              QFile::Permissions()) << "the runtime directory is private";
}

TEST(SingleInstanceTest, ALaterClaimAsksTheOwnerToShowItsWindow)
{
    QTemporaryDir dir;
    SingleInstance first(dir.path());
    ASSERT_EQ(first.claim(), SingleInstance::Role::Primary);
    QSignalSpy activated(&first, &SingleInstance::activationRequested);

    SingleInstance second(dir.path());
    EXPECT_EQ(second.claim(), SingleInstance::Role::Secondary) << second.error().toStdString();
    EXPECT_EQ(second.ownerPid(), QCoreApplication::applicationPid());
    EXPECT_TRUE(waitUntil([&] { return activated.count() == 1; }, 5s));
}

TEST(SingleInstanceTest, TheAppIsFreeAgainWhenTheOwnerEnds)
{
    QTemporaryDir dir;
    {
        SingleInstance first(dir.path());
        ASSERT_EQ(first.claim(), SingleInstance::Role::Primary);
    }
    SingleInstance next(dir.path());
    EXPECT_EQ(next.claim(), SingleInstance::Role::Primary) << next.error().toStdString();
}

TEST(SingleInstanceTest, ACrashedOwnersLockAndSocketAreTakenOver)
{
    QTemporaryDir dir;
    // What a killed owner leaves: a lock naming a process that is gone (a child that took it and
    // ended without unlocking), and its socket file.
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        QLockFile lock(dir.filePath(QStringLiteral("app.lock")));
        ::_exit(lock.tryLock(0) ? 0 : 1);   // _exit: the lock is never released
    }
    int status = -1;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ASSERT_TRUE(QFileInfo::exists(dir.filePath(QStringLiteral("app.lock"))));
    QFile socket(dir.filePath(QStringLiteral("app.socket")));
    ASSERT_TRUE(socket.open(QIODevice::WriteOnly));
    socket.close();

    SingleInstance next(dir.path());
    EXPECT_EQ(next.claim(), SingleInstance::Role::Primary) << next.error().toStdString();
}

TEST(SingleInstanceTest, AnOwnerThatNeverAnswersIsNamed)
{
    QTemporaryDir dir;
    QLockFile held(dir.filePath(QStringLiteral("app.lock")));
    ASSERT_TRUE(held.tryLock(0));   // the lock taken, nobody listening
    SingleInstance next(dir.path());
    EXPECT_EQ(next.claim(), SingleInstance::Role::Failed);
    EXPECT_THAT(next.error().toStdString(), HasSubstr("does not answer"));
    EXPECT_THAT(next.error().toStdString(), HasSubstr(std::to_string(QCoreApplication::applicationPid())));
}

// The installed program's behaviour: `switchyard` started twice.
class SingleInstanceProcessTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        program = qEnvironmentVariable("SWITCHYARD_BUILD_DIR") + QStringLiteral("/app/switchyard");
        if (!QFileInfo(program).isExecutable())
            GTEST_SKIP() << "no " << program.toStdString();
        ASSERT_TRUE(dir.isValid());
        QDir().mkpath(dir.filePath(QStringLiteral("runtime")));
        QFile::setPermissions(dir.filePath(QStringLiteral("runtime")), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }
    void TearDown() override
    {
        for (QProcess *process : {&first, &second}) {
            if (process->state() != QProcess::NotRunning) {
                process->kill();
                process->waitForFinished(10'000);
            }
        }
    }
    void start(QProcess &process)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), dir.filePath(QStringLiteral("runtime")));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        process.setProcessEnvironment(env);
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(program, {QStringLiteral("--port"), QStringLiteral("0")});
        ASSERT_TRUE(process.waitForStarted(10'000));
    }
    bool owns(const QProcess &process) const
    {
        QFile lock(dir.filePath(QStringLiteral("runtime/switchyard/app.lock")));
        return lock.open(QIODevice::ReadOnly) && lock.readLine().trimmed() == QByteArray::number(process.processId())
            && QFileInfo::exists(dir.filePath(QStringLiteral("runtime/switchyard/app.socket")));
    }

    QString program;
    QTemporaryDir dir;
    QProcess first;
    QProcess second;
};

TEST_F(SingleInstanceProcessTest, ASecondStartHandsOverAndEnds)
{
    start(first);
    ASSERT_TRUE(waitUntil([&] { return owns(first); }, 30s)) << first.readAll().toStdString();
    start(second);
    ASSERT_TRUE(second.waitForFinished(30'000));
    EXPECT_EQ(second.exitCode(), 0);
    EXPECT_THAT(second.readAll().toStdString(),
                HasSubstr("already running (process " + std::to_string(first.processId()) + ")"));
    EXPECT_EQ(first.state(), QProcess::Running) << "the first one keeps running";
}

TEST_F(SingleInstanceProcessTest, AKilledFirstStartDoesNotLockTheNextOneOut)
{
    start(first);
    ASSERT_TRUE(waitUntil([&] { return owns(first); }, 30s)) << first.readAll().toStdString();
    first.kill();
    ASSERT_TRUE(first.waitForFinished(10'000));
    start(second);
    EXPECT_TRUE(waitUntil([&] { return owns(second); }, 30s)) << second.readAll().toStdString();
    EXPECT_EQ(second.state(), QProcess::Running);
}

} // namespace
