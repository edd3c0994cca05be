#include "storage/LedgerLogRecord.h"

#include "core/JsonText.h"

#include <QtEndian>

#include <algorithm>
#include <cstring>
#include <limits>

namespace sy::storage {

namespace {

constexpr char kMagic[] = "SYLEDGERLOG1 ";
constexpr qsizetype kMagicSize = sizeof(kMagic) - 1;
constexpr qsizetype kRecordHead = 4 + 8;  // payload length, checksum
constexpr qint64 kInvalidTime = std::numeric_limits<qint64>::min();

quint64 fnv1a64(const char *data, qsizetype size)
{
    quint64 hash = 0xcbf29ce484222325ULL;
    for (qsizetype i = 0; i < size; ++i) {
        hash ^= quint8(data[i]);
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

template <class T>
void put(QByteArray &out, T value)
{
    char bytes[sizeof(T)];
    qToLittleEndian(value, bytes);
    json::appendRaw(out, bytes, qsizetype(sizeof(T)));
}

void putText(QByteArray &out, const QString &text)
{
    const qsizetype lengthAt = out.size();
    put<quint32>(out, 0);
    // UTF-8 straight into `out`, then the length it took. The texts are ids and names, nearly
    // always ASCII: those are copied unit by unit, without the temporary toUtf8() allocates.
    const qsizetype before = out.size();
    out.resize(before + text.size());
    char *dst = out.data() + before;
    for (const QChar c : text) {
        if (c.unicode() >= 0x80) {
            out.truncate(before);
            out.append(text.toUtf8());
            break;
        }
        *dst++ = char(c.unicode());
    }
    qToLittleEndian(quint32(out.size() - before), out.data() + lengthAt);
}

// Reads a payload front to back; any read past its end fails the whole payload.
class PayloadReader {
public:
    explicit PayloadReader(QByteArrayView bytes) : m_bytes(bytes) {}
    template <class T>
    T take()
    {
        if (m_at + qsizetype(sizeof(T)) > m_bytes.size()) {
            m_failed = true;
            return T{};
        }
        const T value = qFromLittleEndian<T>(m_bytes.data() + m_at);
        m_at += qsizetype(sizeof(T));
        return value;
    }
    QString takeText()
    {
        const qsizetype size = qsizetype(take<quint32>());
        if (m_failed || m_at + size > m_bytes.size()) {
            m_failed = true;
            return {};
        }
        QString text = QString::fromUtf8(m_bytes.data() + m_at, size);
        m_at += size;
        return text;
    }
    bool wholeAndValid() const { return !m_failed && m_at == m_bytes.size(); }

private:
    QByteArrayView m_bytes;
    qsizetype m_at = 0;
    bool m_failed = false;
};

} // namespace

bool ledgerLogIdIsValid(const QByteArray &databaseId)
{
    return databaseId.size() == kLedgerLogIdSize
        && std::all_of(databaseId.begin(), databaseId.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

QByteArray ledgerLogHeader(const QByteArray &databaseId)
{
    QByteArray header;
    header.reserve(kLedgerLogHeaderSize);
    header.append(kMagic, kMagicSize).append(databaseId).append('\n');
    return header;
}

std::optional<QByteArray> ledgerLogIdOf(QByteArrayView bytes)
{
    if (bytes.size() < kLedgerLogHeaderSize || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0
        || bytes[kLedgerLogHeaderSize - 1] != '\n')
        return std::nullopt;
    QByteArray id(bytes.data() + kMagicSize, kLedgerLogIdSize);
    if (!ledgerLogIdIsValid(id))
        return std::nullopt;
    return id;
}

bool appendLedgerLogRecord(QByteArray &out, const StoredLedgerEntry &entry)
{
    const qsizetype start = out.size();
    put<quint32>(out, 0);
    put<quint64>(out, 0);
    const qsizetype payloadAt = out.size();
    put<quint64>(out, entry.sequence);
    put<qint64>(out, entry.at.isValid() ? entry.at.toMSecsSinceEpoch() : kInvalidTime);
    put<qint64>(out, entry.promptTokens);
    put<qint64>(out, entry.completionTokens);
    put<qint64>(out, entry.amountNanos);
    for (const QString *text : {&entry.kind, &entry.requestId, &entry.keyName, &entry.modelId, &entry.channelId, &entry.note})
        putText(out, *text);
    const qsizetype payloadSize = out.size() - payloadAt;
    if (payloadSize > kLedgerLogMaxPayload) {
        out.truncate(start);
        return false;
    }
    qToLittleEndian(quint32(payloadSize), out.data() + start);
    qToLittleEndian(fnv1a64(out.constData() + payloadAt, payloadSize), out.data() + start + 4);
    return true;
}

LedgerLogRecords readLedgerLogRecords(QByteArrayView records)
{
    LedgerLogRecords read;
    qsizetype at = 0;
    while (at < records.size()) {
        // Zeros from here to the end: room the file was given and nothing was written into yet.
        if (std::all_of(records.begin() + at, records.end(), [](char c) { return c == 0; }))
            break;
        if (records.size() - at < kRecordHead) {
            read.damaged = true;
            break;
        }
        const qsizetype size = qsizetype(qFromLittleEndian<quint32>(records.data() + at));
        const quint64 checksum = qFromLittleEndian<quint64>(records.data() + at + 4);
        if (size > kLedgerLogMaxPayload || records.size() - at - kRecordHead < size
            || fnv1a64(records.data() + at + kRecordHead, size) != checksum) {
            read.damaged = true;
            break;
        }
        PayloadReader payload(records.sliced(at + kRecordHead, size));
        StoredLedgerEntry entry;
        entry.sequence = payload.take<quint64>();
        const qint64 atMs = payload.take<qint64>();
        entry.promptTokens = payload.take<qint64>();
        entry.completionTokens = payload.take<qint64>();
        entry.amountNanos = payload.take<qint64>();
        for (QString *text : {&entry.kind, &entry.requestId, &entry.keyName, &entry.modelId, &entry.channelId, &entry.note})
            *text = payload.takeText();
        if (!payload.wholeAndValid()) {
            read.damaged = true;
            break;
        }
        if (atMs != kInvalidTime)
            entry.at = QDateTime::fromMSecsSinceEpoch(atMs, Qt::UTC);
        read.entries.push_back(std::move(entry));
        at += kRecordHead + size;
        read.validBytes = at;
    }
    return read;
}

} // namespace sy::storage
