// Entry points of the loader: reading the file, protecting `${NAME}` references from the YAML
// grammar, parsing, and turning the two passes (Sections.h) into a LoadResult.
#include "config/ConfigLoader.h"

#include "config/NodeReader.h"
#include "config/Sections.h"

#include <QFile>
#include <algorithm>
#include <tuple>

namespace sy::config {

namespace {

// A configuration is a few kilobytes; anything far larger is almost surely the wrong file.
constexpr qint64 kMaxFileBytes = 16 * 1024 * 1024;

bool isNameStart(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool isNameChar(char c)
{
    return isNameStart(c) || (c >= '0' && c <= '9');
}

// Rejects control characters (YAML forbids them; they are also the reference markers), then
// rewrites each well-formed `${NAME}` to `$` kRefOpen NAME kRefClose in place. Same length, so
// every line and column reported later is the user's.
bool protectReferences(QByteArray &text, detail::Reader &reader)
{
    int line = 1;
    int column = 1;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text.at(i);
        if (c == '\n') {
            ++line;
            column = 1;
            continue;
        }
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\r') || c == '\x7F') {
            reader.fail(detail::Where{line, column, QString()},
                        QStringLiteral("control character 0x%1 is not allowed in YAML")
                            .arg(static_cast<unsigned char>(c), 2, 16, QLatin1Char('0')));
            return false;
        }
        ++column;
    }
    for (qsizetype i = 0; i + 3 < text.size(); ++i) {
        if (text.at(i) != '$' || text.at(i + 1) != '{' || !isNameStart(text.at(i + 2)))
            continue;
        qsizetype end = i + 3;
        while (end < text.size() && isNameChar(text.at(end)))
            ++end;
        if (end < text.size() && text.at(end) == '}') {
            text[i + 1] = detail::kRefOpen;
            text[end] = detail::kRefClose;
            i = end;
        }
    }
    return true;
}

// yaml-cpp counts columns in bytes; editors count characters. Converts a 1-based byte column on
// a 1-based line of `text` (UTF-8) to a 1-based character column.
int characterColumn(const QByteArray &text, int line, int byteColumn)
{
    qsizetype start = 0;
    for (int l = 1; l < line; ++l) {
        start = text.indexOf('\n', start);
        if (start < 0)
            return byteColumn;
        ++start;
    }
    int column = 1;
    for (qsizetype i = start; i < start + byteColumn - 1 && i < text.size(); ++i)
        if ((static_cast<unsigned char>(text.at(i)) & 0xC0) != 0x80)   // not a continuation byte
            ++column;
    return column;
}

LoadResult failed(detail::Reader &reader, const QByteArray &text)
{
    std::vector<ConfigError> errors = reader.takeErrors();
    for (ConfigError &e : errors)
        if (e.line > 0 && e.column > 0)
            e.column = characterColumn(text, e.line, e.column);
    std::stable_sort(errors.begin(), errors.end(), [](const ConfigError &a, const ConfigError &b) {
        return std::tie(a.line, a.column) < std::tie(b.line, b.column);
    });
    return {std::nullopt, std::move(errors)};
}

} // namespace

QString ConfigError::toString() const
{
    QString out = file;
    if (line > 0) {
        out += QStringLiteral(":%1").arg(line);
        if (column > 0)
            out += QStringLiteral(":%1").arg(column);
    }
    out += QStringLiteral(": ");
    if (!field.isEmpty())
        out += field + QStringLiteral(": ");
    return out + message;
}

LoadResult loadConfigText(const QByteArray &input, const QString &sourceName,
                          const QProcessEnvironment &env)
{
    detail::Reader reader(sourceName, env);
    QByteArray text = input;
    if (!protectReferences(text, reader))
        return failed(reader, text);

    std::vector<YAML::Node> documents;
    try {
        documents = YAML::LoadAll(text.toStdString());
    } catch (const YAML::Exception &e) {
        // yaml-cpp's messages describe the grammar ("end of map not found"), never the content.
        reader.fail(detail::Where{e.mark.line >= 0 ? e.mark.line + 1 : 0,
                                  e.mark.column >= 0 ? e.mark.column + 1 : 0, QString()},
                    QStringLiteral("YAML syntax error: %1").arg(QString::fromStdString(e.msg)));
        return failed(reader, text);
    }
    if (documents.empty() || (documents.size() == 1 && documents.front().IsNull())) {
        reader.fail(detail::Where{1, 1, QString()},
                    QStringLiteral("the file is empty; expected a mapping of configuration keys"));
        return failed(reader, text);
    }
    if (documents.size() > 1) {
        reader.fail(reader.where(documents[1], QString()),
                    QStringLiteral("expected a single YAML document"));
        return failed(reader, text);
    }

    Config config;
    detail::Marks marks;
    try {
        detail::readDocument(reader, documents.front(), config, marks);
        if (documents.front().IsMap())
            detail::validateConfig(reader, config, marks);
    } catch (const YAML::Exception &e) {
        // The readers check node types before every access; reaching this is a loader bug, but a
        // bad file must still end in an error rather than an exception through the caller.
        reader.fail(detail::Where{}, QStringLiteral("internal error while reading: %1")
                                         .arg(QString::fromStdString(e.msg)));
    }
    if (reader.hasErrors())
        return failed(reader, text);
    return {std::move(config), {}};
}

LoadResult loadConfigFile(const QString &path, const QProcessEnvironment &env)
{
    QFile file(path);
    const auto fileError = [&](const QString &message) {
        return LoadResult{std::nullopt, {ConfigError{path, 0, 0, QString(), message}}};
    };
    if (!file.open(QIODevice::ReadOnly))
        return fileError(QStringLiteral("cannot read the file: %1").arg(file.errorString()));
    if (file.size() > kMaxFileBytes)
        return fileError(QStringLiteral("file is larger than 16 MiB; not a configuration file"));
    const QByteArray text = file.readAll();
    if (file.error() != QFileDevice::NoError)
        return fileError(QStringLiteral("cannot read the file: %1").arg(file.errorString()));
    return loadConfigText(text, path, env);
}

} // namespace sy::config
