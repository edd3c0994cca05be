#include "storage/LedgerLogFiles.h"

#include "storage/LedgerLogRecord.h"

#include <QFile>
#include <QLoggingCategory>

#include <cerrno>
#include <cstring>
#include <map>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

Q_DECLARE_LOGGING_CATEGORY(lcStorage)

namespace sy::storage {

namespace {

QString systemError(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

// Writes all of `bytes` at `at` in `fd`; false with errno set when it could not.
bool writeAllAt(int fd, const char *bytes, qsizetype size, off_t at)
{
    while (size > 0) {
        const ssize_t written = ::pwrite(fd, bytes, std::size_t(size), at);
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        bytes += written;
        size -= written;
        at += written;
    }
    return true;
}

// The whole of `fd`'s file from its start; false with errno set on a read error.
bool readAll(int fd, QByteArray &out)
{
    char chunk[64 * 1024];
    for (off_t at = 0;;) {
        const ssize_t got = ::pread(fd, chunk, sizeof chunk, at);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        if (got == 0)
            return true;
        out.append(chunk, got);
        at += got;
    }
}

} // namespace

QStringList LedgerLogFiles::paths(const QString &databasePath)
{
    return {databasePath + QStringLiteral("-ledger0"), databasePath + QStringLiteral("-ledger1")};
}

LedgerLogFiles::LedgerLogFiles(const QByteArray &databaseId) : m_header(ledgerLogHeader(databaseId)) {}

LedgerLogFiles::~LedgerLogFiles()
{
    for (File &file : m_files)
        close(file);
}

void LedgerLogFiles::close(File &file)
{
    if (file.map)
        ::munmap(file.map, std::size_t(file.mapped));
    file.map = nullptr;
    file.mapped = 0;
    if (file.fd < 0)
        return;
    // The room goes; a file that cannot be cut keeps zeros, which read as its end.
    if (file.length > file.size && ::ftruncate(file.fd, file.size) == 0)
        file.length = file.size;
    ::close(file.fd);
    file.fd = -1;
}

std::variant<LedgerLogFiles::Opened, QString> LedgerLogFiles::open(const QString &databasePath,
                                                                   const QByteArray &databaseId)
{
    if (!ledgerLogIdIsValid(databaseId))
        return QStringLiteral("the database's ledger-log id is not valid: %1").arg(QString::fromLatin1(databaseId));
    Opened opened;
    opened.files.reset(new LedgerLogFiles(databaseId));
    std::map<quint64, StoredLedgerEntry> recovered;
    const QStringList names = paths(databasePath);
    for (int i = 0; i < 2; ++i) {
        File &file = opened.files->m_files[i];
        file.path = names[i];
        file.fd = ::open(QFile::encodeName(file.path).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (file.fd < 0)
            return QStringLiteral("cannot open %1: %2").arg(file.path, systemError(errno));
        // One writer: another process's reset() would empty (and cut under the mapping of) the
        // files this one writes. The lock goes with the descriptor, also when a process dies.
        if (::flock(file.fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno == EWOULDBLOCK)
                return QStringLiteral("%1 is in use by another process: is another Switchyard running on %2?")
                    .arg(file.path, databasePath);
            return QStringLiteral("cannot lock %1: %2").arg(file.path, systemError(errno));
        }
        QByteArray bytes;
        if (!readAll(file.fd, bytes))
            return QStringLiteral("cannot read %1: %2").arg(file.path, systemError(errno));
        file.size = bytes.size();
        file.length = bytes.size();
        if (bytes.isEmpty())
            continue;
        const std::optional<QByteArray> id = ledgerLogIdOf(bytes);
        const LedgerLogRecords records =
            id ? readLedgerLogRecords(QByteArrayView(bytes).sliced(kLedgerLogHeaderSize)) : LedgerLogRecords{};
        if (id != databaseId) {
            opened.foreignEntries += qsizetype(records.entries.size());
            continue;
        }
        opened.damagedTail = opened.damagedTail || records.damaged;
        for (const StoredLedgerEntry &entry : records.entries)
            recovered.emplace(entry.sequence, entry);
    }
    opened.recovered.reserve(recovered.size());
    for (auto &[sequence, entry] : recovered)
        opened.recovered.push_back(std::move(entry));
    return opened;
}

QString LedgerLogFiles::reset()
{
    std::lock_guard lock(m_mutex);
    for (File &file : m_files) {
        file.length = 0;
        if (::ftruncate(file.fd, 0) != 0 || !writeAllAt(file.fd, m_header.constData(), m_header.size(), 0))
            return QStringLiteral("cannot write %1: %2").arg(file.path, systemError(errno));
        file.size = m_header.size();
        file.length = m_header.size();
        file.unconfirmed = 0;
    }
    m_fileOf.clear();
    m_active = 0;
    m_failed = false;
    return {};
}

bool LedgerLogFiles::append(const StoredLedgerEntry &entry)
{
    std::lock_guard lock(m_mutex);
    if (m_failed)
        return false;
    if (m_fileOf.count(entry.sequence))
        return true;  // written before, not yet in the database: durable already
    File &other = m_files[1 - m_active];
    if (m_files[m_active].size >= kRotateBytes && other.unconfirmed == 0 && other.size == m_header.size())
        m_active = 1 - m_active;
    File &file = m_files[m_active];
    m_record.resize(0);  // keeps the capacity
    if (!appendLedgerLogRecord(m_record, entry))
        return false;
    if (!makeRoom(file, m_record.size())) {
        qCWarning(lcStorage).noquote() << "cannot write ledger entry" << entry.sequence << "to" << file.path
                                         << ":" << systemError(errno);
        return false;
    }
    std::memcpy(file.map + file.size, m_record.constData(), std::size_t(m_record.size()));
    file.size += m_record.size();
    ++file.unconfirmed;
    m_fileOf.emplace(entry.sequence, m_active);
    return true;
}

void LedgerLogFiles::committed(const std::vector<quint64> &sequences)
{
    std::lock_guard lock(m_mutex);
    for (const quint64 sequence : sequences) {
        const auto it = m_fileOf.find(sequence);
        if (it == m_fileOf.end())
            continue;
        File &file = m_files[it->second];
        m_fileOf.erase(it);
        if (--file.unconfirmed == 0)
            empty(file);
    }
}

bool LedgerLogFiles::empty(File &file)
{
    if (file.size == m_header.size())
        return true;
    if (file.map && file.length <= kKeptRoomBytes) {
        // Zeros over the records: the room is kept, and no system call holds up append() (cutting
        // a file whose pages are mapped and dirty takes milliseconds).
        std::memset(file.map + m_header.size(), 0, std::size_t(file.size - m_header.size()));
        file.size = m_header.size();
        return true;
    }
    if (::ftruncate(file.fd, m_header.size()) != 0) {
        // Left as it is: what it holds is in the database, so a replay would only be ignored.
        qCWarning(lcStorage).noquote() << "cannot empty" << file.path << ":" << systemError(errno);
        return false;
    }
    // The mapping stays; the pages past the new end are room again only after makeRoom().
    file.size = m_header.size();
    file.length = m_header.size();
    return true;
}

bool LedgerLogFiles::makeRoom(File &file, qint64 bytes)
{
    if (file.size + bytes <= file.length && file.map)
        return true;
    const qint64 wanted = (file.size + bytes + kGrowBytes - 1) / kGrowBytes * kGrowBytes;
    if (wanted > file.length) {
        if (const int error = ::posix_fallocate(file.fd, file.length, wanted - file.length); error != 0) {
            // It may have grown in part: the room is only what the length says.
            [[maybe_unused]] const int rc = ::ftruncate(file.fd, file.length);
            errno = error;
            return false;
        }
        file.length = wanted;
    }
    if (file.mapped < file.length) {
        void *map = file.map ? ::mremap(file.map, std::size_t(file.mapped), std::size_t(file.length), MREMAP_MAYMOVE)
                             : ::mmap(nullptr, std::size_t(file.length), PROT_READ | PROT_WRITE, MAP_SHARED, file.fd, 0);
        if (map == MAP_FAILED)
            return false;
        file.map = static_cast<char *>(map);
        file.mapped = file.length;
    }
    return true;
}

bool LedgerLogFiles::removeIfAllCommitted()
{
    std::lock_guard lock(m_mutex);
    if (!m_fileOf.empty())
        return false;
    for (File &file : m_files) {
        close(file);
        QFile::remove(file.path);
    }
    m_failed = true;
    return true;
}

LedgerLogFiles::Sizes LedgerLogFiles::sizes() const
{
    std::lock_guard lock(m_mutex);
    Sizes sizes;
    for (int i = 0; i < 2; ++i)
        sizes.bytes[i] = m_files[i].size;
    sizes.unconfirmed = int(m_fileOf.size());
    sizes.failed = m_failed;
    return sizes;
}

} // namespace sy::storage
