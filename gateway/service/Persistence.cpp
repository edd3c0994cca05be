#include "service/Persistence.h"

#include "config/ConfigWriter.h"
#include "service/GatewayService.h"
#include "service/StoredLedger.h"

#include <QCoreApplication>
#include <QLoggingCategory>

Q_LOGGING_CATEGORY(lcPersistence, "switchyard.persistence")

namespace sy::service {

namespace {

bool holdsPlainCredentials(const config::Config &config)
{
    for (const config::Channel &channel : config.channels)
        for (const QString &credential : channel.credentials)
            if (!credential.startsWith(QLatin1String(kVaultReferencePrefix)))
                return true;
    return false;
}

} // namespace

std::variant<config::Config, QString> configurationFromStore(storage::Store &store, config::Config seed, bool *fromStore,
                                                             storage::CredentialVault *vault)
{
    if (fromStore)
        *fromStore = false;
    CredentialVaulting vaulting(store, vault);
    if (const std::optional<QByteArray> stored = store.loadConfig()) {
        // Stored documents hold expanded values: no environment is applied to them.
        config::LoadResult loaded = config::loadConfigText(*stored, QStringLiteral("<database>"), QProcessEnvironment());
        if (!loaded.config)
            return QStringLiteral("the configuration stored in the database does not load: %1").arg(loaded.errors.front().toString());
        config::Config config = std::move(*loaded.config);
        for (const QString &missing : vaulting.resolve(config))
            qCWarning(lcPersistence).noquote() << "credential not found in the OS keychain:" << missing
                                               << "- enter it again (its channel fails until then)";
        if (vault && holdsPlainCredentials(config)) {
            // Moved into the vault: the stored document keeps references only.
            const auto document = vaulting.document(config);
            if (const QByteArray *json = std::get_if<QByteArray>(&document)) {
                store.saveConfig(*json);
                store.flush();
            }
        }
        if (fromStore)
            *fromStore = true;
        return config;
    }
    if (!store.stats().lastError.isEmpty())
        return QStringLiteral("the database cannot be read: %1").arg(store.stats().lastError);
    const auto document = vaulting.document(seed);
    if (const QString *error = std::get_if<QString>(&document))
        return QStringLiteral("the configuration cannot be stored: %1").arg(*error);
    store.saveConfig(std::get<QByteArray>(document));
    store.flush();
    return seed;
}

Persistence::Persistence(GatewayService &gateway, storage::Store &store, storage::CredentialVault *vault, QObject *parent)
    : QObject(parent)
    , m_gateway(gateway)
    , m_gatewayAlive(&gateway)
    , m_store(store)
    , m_vaulting(store, vault)
{
    gateway.setStore(&store);
    gateway.state().ledger.setJournal(this);
    m_ledgerRetry.setInterval(1000);
    connect(&m_ledgerRetry, &QTimer::timeout, this, &Persistence::retryUnpublishedLedger);
    connect(&gateway.requestLog(), &RequestLog::recorded, this, &Persistence::onRequestFinished);
    connect(&gateway, &GatewayService::configApplied, this, &Persistence::persistConfig);
    connect(&gateway, &GatewayService::ledgerChanged, this, &Persistence::retryUnpublishedLedger);
    connect(&gateway, &GatewayService::configApplied, this, &Persistence::applyRetention);
    applyRetention();
    m_vaulting.adopt(gateway.workspace()->config());
    if (store.isShared()) {
        gateway.state().ledger.setShared(this);
        m_configVersion = store.configVersion().value_or(storage::StoredConfigVersion{}).version;
        m_sharedPoll.setInterval(500);
        connect(&m_sharedPoll, &QTimer::timeout, this, &Persistence::pollShared);
        m_sharedPoll.start();
    }
}

Persistence::~Persistence()
{
    drain();  // no answer of the store may outlive this object (Store::commitLedgerLater)
    if (m_gatewayAlive) {
        m_gateway.state().ledger.setJournal(nullptr);
        m_gateway.state().ledger.setShared(nullptr);
    }
}

billing::SharedMoney::Verdict Persistence::reserve(quint64 id, const QString &keyName,
                                                   std::optional<billing::Nanos> keySpendLimit, billing::Nanos estimate,
                                                   std::optional<billing::Nanos> openingBalance)
{
    switch (m_store.reserve(storage::StoredReservation{id, keyName, estimate, openingBalance, keySpendLimit})) {
    case storage::SharedAdmission::Admitted:
        return Verdict::Admitted;
    case storage::SharedAdmission::InsufficientBalance:
        return Verdict::InsufficientBalance;
    case storage::SharedAdmission::SpendLimitReached:
        return Verdict::SpendLimitReached;
    case storage::SharedAdmission::Unavailable:
        break;
    }
    return Verdict::Unavailable;
}

void Persistence::release(quint64 id)
{
    m_store.releaseReservation(id);
}

void Persistence::pollShared()
{
    if (m_pollInFlight) {
        m_pollAgain = true;
        return;
    }
    m_pollInFlight = true;
    storage::Store *store = &m_store;
    const quint64 after = m_gateway.state().ledger.lastSequence();
    const qint64 known = m_configVersion;
    const quint64 edits = m_localEdits;
    QPointer<Persistence> self(this);
    // On the store's thread: the reads there do not block the gateway thread.
    m_store.post([store, after, known, edits, self]() -> std::function<void()> {
        std::vector<storage::StoredLedgerEntry> entries = store->ledgerEntries(after, kLedgerRestorePage);
        const std::optional<storage::StoredConfigVersion> version = store->configVersion();
        std::optional<QByteArray> document;
        if (version && version->version != known && !version->writtenHere)
            document = store->loadConfig();
        const qint64 seen = version ? version->version : known;
        return [self, entries = std::move(entries), document = std::move(document), seen, edits]() mutable {
            if (self)  // on the gateway thread, where this object is destroyed
                self->applySharedChanges(std::move(entries), std::move(document), seen, edits);
        };
    });
}

void Persistence::applySharedChanges(std::vector<storage::StoredLedgerEntry> entries, std::optional<QByteArray> document,
                                     qint64 version, quint64 editsWhenAsked)
{
    m_pollInFlight = false;
    if (!m_gatewayAlive)
        return;
    if (entries.size() >= std::size_t(kLedgerRestorePage))
        m_pollAgain = true;  // a full page: the database holds more, read on at once
    if (!entries.empty()) {
        std::vector<billing::LedgerEntry> converted;
        converted.reserve(entries.size());
        for (const storage::StoredLedgerEntry &stored : entries)
            converted.push_back(fromStored(stored));
        m_gateway.state().ledger.restore(converted);
    }
    // An edit made here since the question was asked is newer than what came back; it is being
    // stored now, and the other gateways will take it.
    if (m_localEdits == editsWhenAsked) {
        if (document) {
            config::LoadResult loaded = config::loadConfigText(*document, QStringLiteral("<database>"), QProcessEnvironment());
            if (!loaded.config) {
                qCWarning(lcPersistence).noquote() << "the configuration another gateway stored does not load, kept the running one:"
                                                   << loaded.errors.front().toString();
            } else {
                config::Config config = std::move(*loaded.config);
                m_vaulting.resolve(config);
                // Every gateway listens where it was started.
                const config::Config &running = m_gateway.workspace()->config();
                config.listenHost = running.listenHost;
                config.listenPort = running.listenPort;
                m_applyingShared = true;
                m_gateway.applyConfig(std::move(config));
                m_applyingShared = false;
                qCInfo(lcPersistence) << "applied the configuration another gateway stored (version" << version << ")";
            }
        }
        m_configVersion = version;
    }
    if (std::exchange(m_pollAgain, false))
        pollShared();
}

void Persistence::submit(billing::Ledger &, const billing::LedgerEntry &entry)
{
    // The ledger is the gateway's: the answer goes to it through m_gatewayAlive, not a reference
    // held across the store's thread.
    const quint64 sequence = entry.sequence;
    m_store.commitLedgerLater(toStored(entry), this, [this, sequence](bool committed) { onJournalled(sequence, committed); });
}

void Persistence::onJournalled(quint64 sequence, bool committed)
{
    if (!m_gatewayAlive)
        return;
    if (committed && m_store.isShared())
        QTimer::singleShot(0, this, &Persistence::pollShared);  // shown once the database numbered it
    if (!committed) {
        qCWarning(lcPersistence).noquote() << "ledger entry" << sequence << "not committed, kept unpublished:"
                                           << m_store.stats().lastError;
        if (!m_ledgerRetry.isActive())
            m_ledgerRetry.start();
    }
    m_gateway.state().ledger.journalled(sequence, committed);
}

void Persistence::drain()
{
    m_store.flush();
    // The answers the flush posted to this object, now rather than at the next turn of the loop.
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
}

void Persistence::retryUnpublishedLedger()
{
    if (m_gateway.state().ledger.publishPending() == 0)
        m_ledgerRetry.stop();
}

void Persistence::applyRetention()
{
    const config::Settings &s = m_gateway.workspace()->config().settings;
    m_store.setRetention(s.logRetentionDays, s.logRetentionCount);
    m_gateway.requestLog().setRetention(s.logRetentionDays, s.logRetentionCount, m_gateway.clock().wallNow());
}

void Persistence::restoreLedger()
{
    billing::Ledger &ledger = m_gateway.state().ledger;
    std::vector<billing::LedgerEntry> entries;
    for (quint64 after = ledger.lastSequence();;) {
        const std::vector<storage::StoredLedgerEntry> page = m_store.ledgerEntries(after, kLedgerRestorePage);
        entries.clear();
        for (const storage::StoredLedgerEntry &stored : page)
            entries.push_back(fromStored(stored));
        ledger.restore(entries);
        if (page.size() < std::size_t(kLedgerRestorePage))
            return;  // the last page (or a read error: stats().lastError says, as before)
        after = page.back().sequence;
    }
}

void Persistence::onRequestFinished(const RequestRecord &record)
{
    // The request's charge, if any, was committed when it was booked (commit()).
    storage::StoredRequest stored;
    stored.id = record.id;
    stored.at = record.at;
    stored.keyName = record.keyName;
    stored.model = record.requestedModel;
    stored.status = record.status;
    stored.failedOver = record.failedOver();
    stored.json = record.toJsonBytes();
    if (record.content)
        stored.content = record.content->toJsonBytes();
    m_store.appendRequest(std::move(stored));
}

void Persistence::keepStoredListen(const QString &host, quint16 port)
{
    const config::Config &running = m_gateway.workspace()->config();
    if (running.listenHost == host && running.listenPort == port)
        m_listenOverride.reset();
    else
        m_listenOverride = ListenOverride{host, port, running.listenHost, running.listenPort};
}

void Persistence::persistConfig()
{
    if (m_applyingShared)
        return;  // another gateway's document, stored already
    ++m_localEdits;
    const config::Config &running = m_gateway.workspace()->config();
    std::optional<config::Config> stored;
    if (m_listenOverride && running.listenHost == m_listenOverride->runningHost
        && running.listenPort == m_listenOverride->runningPort) {
        stored = running;
        stored->listenHost = m_listenOverride->storedHost;
        stored->listenPort = m_listenOverride->storedPort;
    }
    const config::Config &config = stored ? *stored : running;
    const auto document = m_vaulting.document(config);
    const QByteArray *json = std::get_if<QByteArray>(&document);
    if (!json)
        return;
    m_store.saveConfig(*json);
    // Entries of removed credentials go only once no committed document refers to them.
    if (m_vaulting.hasVault() && m_store.flush())
        m_vaulting.forgetUnused(config);
}

void Persistence::flush()
{
    m_gateway.state().ledger.publishPending();
    drain();
}

} // namespace sy::service
