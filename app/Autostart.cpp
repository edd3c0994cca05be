#include "Autostart.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>
#include <algorithm>

namespace sy::app {

namespace {

// Desktop entry specification, "The Exec key": an argument with reserved characters is quoted,
// and inside quotes `"`, `` ` ``, `$` and `\` are escaped; a literal `%` is doubled.
QString quotedArgument(const QString &argument)
{
    static const QString reserved = QStringLiteral(" \t\n\"'\\><~|&;$*?#()`");
    QString escaped = argument;
    escaped.replace(QLatin1Char('%'), QStringLiteral("%%"));
    if (std::none_of(argument.begin(), argument.end(), [](QChar c) { return reserved.contains(c); }))
        return escaped;
    QString quoted;
    for (const QChar c : escaped) {
        if (c == QLatin1Char('"') || c == QLatin1Char('`') || c == QLatin1Char('$') || c == QLatin1Char('\\'))
            quoted += QLatin1Char('\\');
        quoted += c;
    }
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

} // namespace

Autostart::Autostart(QString program, QString entryPath, QObject *parent)
    : QObject(parent)
    , m_program(std::move(program))
    , m_entryPath(entryPath.isEmpty() ? defaultEntryPath() : std::move(entryPath))
{
    read();
}

QString Autostart::defaultEntryPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation)
         + QStringLiteral("/autostart/switchyard.desktop");
}

QString Autostart::entryText(const QString &program, bool hidden)
{
    return QStringLiteral("[Desktop Entry]\n"
                          "Type=Application\n"
                          "Name=Switchyard\n"
                          "Comment=Local LLM router, started at login\n"
                          "Exec=%1%2\n"
                          "Icon=switchyard\n"
                          "Terminal=false\n"
                          "X-GNOME-Autostart-enabled=true\n")
        .arg(quotedArgument(program), hidden ? QStringLiteral(" --hidden") : QString());
}

void Autostart::read()
{
    m_startAtLogin = false;
    m_startHidden = false;
    QFile file(m_entryPath);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return;
    bool hiddenEntry = false;
    bool hiddenStart = false;
    while (!file.atEnd()) {
        const QString line = QString::fromUtf8(file.readLine()).trimmed();
        if (line == QLatin1String("Hidden=true") || line == QLatin1String("X-GNOME-Autostart-enabled=false"))
            hiddenEntry = true;
        else if (line.startsWith(QLatin1String("Exec=")))
            hiddenStart = line.split(QLatin1Char(' ')).contains(QLatin1String("--hidden"));
    }
    m_startAtLogin = !hiddenEntry;
    m_startHidden = m_startAtLogin && hiddenStart;
}

bool Autostart::write(bool hidden)
{
    const QString dir = QFileInfo(m_entryPath).absolutePath();
    if (!QDir().mkpath(dir)) {
        m_error = tr("Cannot create %1").arg(QDir::toNativeSeparators(dir));
        return false;
    }
    QSaveFile file(m_entryPath);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)
        || file.write(entryText(m_program, hidden).toUtf8()) < 0 || !file.commit()) {
        m_error = tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(m_entryPath), file.errorString());
        return false;
    }
    return true;
}

void Autostart::setStartAtLogin(bool on)
{
    m_error.clear();
    if (on) {
        write(m_startHidden);
    } else if (QFile::exists(m_entryPath) && !QFile::remove(m_entryPath)) {
        m_error = tr("Cannot remove %1").arg(QDir::toNativeSeparators(m_entryPath));
    }
    read();
    emit changed();
}

void Autostart::setStartHidden(bool hidden)
{
    m_error.clear();
    if (m_startAtLogin)
        write(hidden);
    read();
    emit changed();
}

} // namespace sy::app
