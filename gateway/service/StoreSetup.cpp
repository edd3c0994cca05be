#include "service/StoreSetup.h"

#include "service/CredentialVaulting.h"
#include "service/GatewayService.h"
#include "service/Persistence.h"
#include "storage/PostgresStore.h"
#include "storage/SqliteStore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace sy::service {

namespace {

// Where the demo simulator listened last time (meta value of a demo database).
const QString kSimulatorUrlMeta = QStringLiteral("demo_simulator_url");

QString refusal(const QString &path, const QString &reason)
{
    const QString hint = reason.contains(QLatin1String("newer"))
        ? QStringLiteral("Use the newer Switchyard that wrote it, or start with --database FILE to use another file.")
        : QStringLiteral("Move the file away (or restore a backup), or start with --database FILE to use another file.");
    const QString file = QDir::toNativeSeparators(path);
    // Most reasons name the file already; it is named once either way.
    const QString what = reason.contains(path) ? QStringLiteral("Cannot use the database: %1").arg(reason)
                                               : QStringLiteral("Cannot use the database %1: %2").arg(file, reason);
    return QStringLiteral("%1\n%2").arg(what, hint);
}

QString postgresRefusal(const QString &reason)
{
    QString hint;
    if (reason.contains(QLatin1String("newer")))
        hint = QStringLiteral("Run the newer Switchyard that upgraded this database (every gateway on one database needs "
                              "that version or a later one), or point `database` at another database.");
    else if (reason.contains(QLatin1String("password")) || reason.contains(QLatin1String("authentication")))
        hint = QStringLiteral("Check the user and password in `database` (postgres://user:password@host:port/database).");
    else if (reason.contains(QLatin1String("does not exist")))
        hint = QStringLiteral("Create the database first (createdb NAME) or point `database` at an existing one.");
    else
        hint = QStringLiteral("Check that the PostgreSQL server is running and reachable at the host and port in "
                              "`database`, or start with --database FILE to use a local SQLite file.");
    return QStringLiteral("%1\n%2").arg(reason, hint);
}

} // namespace

QString chooseDatabasePath(const QString &explicitPath, const QString &configured, const QString &defaultName)
{
    if (!explicitPath.isEmpty())
        return explicitPath;
    if (!configured.isEmpty())
        return configured;
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QLatin1Char('/') + defaultName;
}

int rebaseChannels(config::Config &config, const QString &from, const QString &to)
{
    if (from.isEmpty() || from == to)
        return 0;
    int moved = 0;
    for (config::Channel &channel : config.channels) {
        // Whole authority only: http://127.0.0.1:4000 must not match http://127.0.0.1:40001.
        if (channel.baseUrl == from || channel.baseUrl.startsWith(from + QLatin1Char('/'))) {
            channel.baseUrl = to + channel.baseUrl.mid(from.size());
            ++moved;
        }
    }
    return moved;
}

QString removeDatabaseFiles(const QString &path)
{
    const QStringList files = QStringList{path, path + QStringLiteral("-wal"), path + QStringLiteral("-shm")}
                              + storage::LedgerLogFiles::paths(path);
    for (const QString &file : files) {
        QFile f(file);
        if (f.exists() && !f.remove())
            return QStringLiteral("Cannot delete %1: %2").arg(QDir::toNativeSeparators(file), f.errorString());
    }
    return {};
}

std::variant<std::unique_ptr<StoreSetup>, QString> StoreSetup::open(const StoreChoice &choice, config::Config seed)
{
    const QString &path = choice.path;
    if (path.isEmpty())
        return QStringLiteral("No database file given; use a SQLite file path for `database` (or --database FILE).");

    std::unique_ptr<storage::Store> store;
    QString shownPath = path;
    const bool shared = storage::isPostgresUrl(path);
    if (shared) {
        const auto address = storage::parsePostgresUrl(path);
        if (const QString *message = std::get_if<QString>(&address))
            return QStringLiteral("Cannot use the database: %1").arg(*message);
        const storage::PostgresAddress &parsed = std::get<storage::PostgresAddress>(address);
        shownPath = parsed.redacted();  // never the password
        auto opened = storage::PostgresStore::open(parsed);
        if (auto *message = std::get_if<QString>(&opened))
            return postgresRefusal(*message);
        store = std::get<std::unique_ptr<storage::PostgresStore>>(std::move(opened));
    } else {
        auto opened = storage::SqliteStore::open(path);
        if (auto *message = std::get_if<QString>(&opened))
            return refusal(path, *message);
        store = std::get<std::unique_ptr<storage::SqliteStore>>(std::move(opened));
    }

    std::unique_ptr<StoreSetup> setup(new StoreSetup);
    setup->m_path = shownPath;
    setup->m_store = std::move(store);
    setup->m_simulatorUrl = choice.simulatorUrl;
    if (choice.simulatorUrl.isEmpty() && !shared)
        setup->m_vault = openCredentialVault();
    auto chosen = configurationFromStore(*setup->m_store, std::move(seed), &setup->m_fromStore, setup->m_vault.get());
    if (auto *message = std::get_if<QString>(&chosen))
        return shared ? postgresRefusal(*message) : refusal(path, *message);
    setup->m_config = std::get<config::Config>(std::move(chosen));
    if (!choice.simulatorUrl.isEmpty() && setup->m_fromStore) {
        const QString previous = setup->m_store->meta(kSimulatorUrlMeta).value_or(QString());
        setup->m_rebased = rebaseChannels(setup->m_config, previous, choice.simulatorUrl);
    }
    return setup;
}

StoreSetup::~StoreSetup()
{
    // The gateway may be gone already: only the store's own queue is committed here.
    m_persistence.reset();
    if (m_store)
        m_store->flush();
}

storage::Store &StoreSetup::store()
{
    return *m_store;
}

void StoreSetup::attach(GatewayService &gateway)
{
    m_persistence = std::make_unique<Persistence>(gateway, *m_store, m_vault.get());
    m_persistence->keepStoredListen(m_chosenHost, m_chosenPort);
    m_persistence->restoreLedger();
    if (m_rebased > 0)
        emit gateway.configApplied();   // persistence stores the rebased channels as an edit
    // After the configuration: a crash in between leaves the old address, so the next start
    // still finds the channels to move.
    if (!m_simulatorUrl.isEmpty())
        m_store->setMeta(kSimulatorUrlMeta, m_simulatorUrl);
    flush();
}

void StoreSetup::flush()
{
    if (m_persistence)
        m_persistence->flush();
    else if (m_store)
        m_store->flush();
}

} // namespace sy::service
