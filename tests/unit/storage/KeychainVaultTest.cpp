// KeychainVault (QtKeychain): without a reachable session D-Bus the probe declines at once
// (credentials then stay in the database file), and a real Secret Service in a private session
// bus stores, returns and deletes entries. That test needs no desktop session (it also runs as
// root): it starts dbus-run-session and gnome-keyring-daemon itself (scripts/packages.txt installs
// them), runs this binary again inside that private session as its child, and is skipped — saying
// why — only when the tools are missing or the keyring daemon does not come up.
#include "storage/KeychainVault.h"

#include "support/Waits.h"

#include <QCoreApplication>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusError>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QScopeGuard>
#include <gtest/gtest.h>

#include <csignal>
#include <sys/types.h>

namespace sy::storage::test {
namespace {

using namespace std::chrono_literals;

constexpr char kChildMarker[] = "SWITCHYARD_KEYCHAIN_CHILD";

// Sets environment variables for one test and restores them after.
class EnvOverride {
public:
    void set(const char *name, const QByteArray &value)
    {
        m_saved.emplace_back(name, qgetenv(name), qEnvironmentVariableIsSet(name));
        if (value.isNull())
            qunsetenv(name);
        else
            qputenv(name, value);
    }
    ~EnvOverride()
    {
        for (auto it = m_saved.rbegin(); it != m_saved.rend(); ++it) {
            if (std::get<2>(*it))
                qputenv(std::get<0>(*it), std::get<1>(*it));
            else
                qunsetenv(std::get<0>(*it));
        }
    }

private:
    std::vector<std::tuple<const char *, QByteArray, bool>> m_saved;
};

TEST(KeychainVaultTest, NoSessionBusDeclinesWithoutTryingD_Bus)
{
    QTemporaryDir runtime;  // no `bus` socket in it
    EnvOverride env;
    env.set("DBUS_SESSION_BUS_ADDRESS", QByteArray());
    env.set("XDG_RUNTIME_DIR", runtime.path().toUtf8());
    QString why;
    EXPECT_EQ(KeychainVault::probe(QStringLiteral("Switchyard test"), 2s, &why), nullptr);
    EXPECT_FALSE(why.isEmpty());
}

TEST(KeychainVaultTest, ABusAddressWithNobodyBehindDeclines)
{
    QTemporaryDir runtime;
    EnvOverride env;
    env.set("DBUS_SESSION_BUS_ADDRESS", "unix:path=" + runtime.filePath(QStringLiteral("nobody")).toUtf8());
    QString why;
    EXPECT_EQ(KeychainVault::probe(QStringLiteral("Switchyard test"), 2s, &why), nullptr);
    EXPECT_FALSE(why.isEmpty());
}

// The child half: runs only inside the private session the parent below made. It is registered
// only in that child (kChildMarker set), so a test listing (CTest's discovery) never shows it as a
// skipped test of its own.
void roundTripInAPrivateSecretService()
{
    // Whether the daemon is up is asked of D-Bus directly, not of the code under test. It
    // registers its name shortly after it was started.
    const QString secrets = QStringLiteral("org.freedesktop.secrets");
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected())
        GTEST_SKIP() << "the private session bus is not reachable: " << bus.lastError().message().toStdString();
    if (!sy::test::waitUntil([&] { return bus.interface()->isServiceRegistered(secrets).value(); }, 10s))
        GTEST_SKIP() << "gnome-keyring-daemon did not register a Secret Service on the private session bus";
    // The daemon is this test's: it is stopped by its process id when the test ends.
    const uint daemon = bus.interface()->servicePid(secrets).value();
    const auto stopDaemon = qScopeGuard([daemon] {
        if (daemon > 1)
            ::kill(pid_t(daemon), SIGTERM);
    });
    QString why;
    std::unique_ptr<KeychainVault> vault = KeychainVault::probe(QStringLiteral("Switchyard test"), 5s, &why);
    ASSERT_TRUE(vault) << why.toStdString();
    EXPECT_EQ(vault->where(), QStringLiteral("OS keychain"));
    const QByteArray secret = "sk-keychain-canary-5e11";
    ASSERT_TRUE(vault->write(QStringLiteral("space/entry"), secret));
    EXPECT_EQ(vault->read(QStringLiteral("space/entry")), secret);
    ASSERT_TRUE(vault->write(QStringLiteral("space/entry"), "replaced"));
    EXPECT_EQ(vault->read(QStringLiteral("space/entry")), QByteArray("replaced"));
    EXPECT_TRUE(vault->remove(QStringLiteral("space/entry")));
    EXPECT_EQ(vault->read(QStringLiteral("space/entry")), std::nullopt);
    EXPECT_TRUE(vault->remove(QStringLiteral("space/never-written")));
}

class KeychainVaultLiveChild : public ::testing::Test {
public:
    explicit KeychainVaultLiveChild(void (*body)()) : m_body(body) {}
    void TestBody() override { m_body(); }

private:
    void (*m_body)();
};

[[maybe_unused]] const bool kChildRegistered = [] {
    if (!qEnvironmentVariableIsSet(kChildMarker))
        return false;
    ::testing::RegisterTest("KeychainVaultLiveChild", "RoundTripInAPrivateSecretService", nullptr, nullptr, __FILE__,
                            __LINE__, []() -> ::testing::Test * {
                                return new KeychainVaultLiveChild(roundTripInAPrivateSecretService);
                            });
    return true;
}();

TEST(KeychainVaultLiveTest, RealSecretServiceInAPrivateSessionBus)
{
    if (qEnvironmentVariableIsSet(kChildMarker))
        GTEST_SKIP() << "already the child";
    // scripts/packages.txt installs both (dbus-daemon, gnome-keyring), so the suite runs this.
    const QString runSession = QStandardPaths::findExecutable(QStringLiteral("dbus-run-session"));
    const QString keyring = QStandardPaths::findExecutable(QStringLiteral("gnome-keyring-daemon"));
    if (runSession.isEmpty() || keyring.isEmpty())
        GTEST_SKIP() << "not installed:" << (runSession.isEmpty() ? " dbus-run-session (Debian package dbus-daemon)" : "")
                     << (keyring.isEmpty() ? " gnome-keyring-daemon (Debian package gnome-keyring)" : "")
                     << "; scripts/test installs them from scripts/packages.txt";

    // A home of its own: the keyring files go there, never into the user's keyring.
    QTemporaryDir home;
    QDir(home.path()).mkpath(QStringLiteral("run"));
    QFile::setPermissions(home.filePath(QStringLiteral("run")), QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                                                   | QFileDevice::ExeOwner);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QString::fromLatin1(kChildMarker), QStringLiteral("1"));
    env.insert(QStringLiteral("HOME"), home.path());
    env.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("XDG_RUNTIME_DIR"), home.filePath(QStringLiteral("run")));
    env.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
    env.remove(QStringLiteral("DISPLAY"));
    // The keyring is created and unlocked with a throw-away password read from stdin.
    // The daemon leaves with the private bus when the child ends.
    const QString script = QStringLiteral(
        "printf switchyard-test | \"$1\" --unlock --components=secrets >/dev/null 2>&1; "
        "exec \"$2\" --gtest_filter=KeychainVaultLiveChild.*");
    QProcess child;
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(runSession, {QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"), script, QStringLiteral("sh"),
                             keyring, QCoreApplication::applicationFilePath()});
    ASSERT_TRUE(child.waitForStarted(10'000)) << child.errorString().toStdString();
    const bool ended = sy::test::waitUntil([&] { return child.state() == QProcess::NotRunning; }, 60s);
    if (!ended) {
        child.kill();
        child.waitForFinished(5'000);
    }
    const QByteArray output = child.readAll();
    ASSERT_TRUE(ended) << "the private session did not end:\n" << output.constData();
    if (output.contains("[  SKIPPED ] 1 test"))
        GTEST_SKIP() << "the keyring daemon did not come up in the private session:\n" << output.constData();
    EXPECT_EQ(child.exitCode(), 0) << output.constData();
    EXPECT_TRUE(output.contains("[  PASSED  ] 1 test")) << output.constData();
}

} // namespace
} // namespace sy::storage::test
