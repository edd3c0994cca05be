#include "ThemeChoice.h"

#include "SystemTheme.h"

#include <QGuiApplication>
#include <QProcess>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleFactory>
#include <memory>

namespace sy::app {

namespace {

// One `gsettings get` answer, trimmed; empty when gsettings is missing, fails or takes too long.
QString gsettingsValue(const QString &schema, const QString &key)
{
    const QString program = QStandardPaths::findExecutable(QStringLiteral("gsettings"));
    if (program.isEmpty())
        return {};
    QProcess process;
    process.start(program, {QStringLiteral("get"), schema, key});
    if (!process.waitForFinished(1000)) {
        process.kill();
        process.waitForFinished(200);
        return {};
    }
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        return {};
    return QString::fromUtf8(process.readAllStandardOutput()).trimmed();
}

QString unquoted(QString text)
{
    text = text.trimmed();
    if (text.size() >= 2 && (text.startsWith(u'\'') || text.startsWith(u'"')) && text.back() == text.front())
        text = text.mid(1, text.size() - 2);
    return text;
}

} // namespace

std::optional<ThemeMode> parseThemeMode(const QString &text)
{
    const QString mode = text.trimmed().toLower();
    if (mode == u"light")
        return ThemeMode::Light;
    if (mode == u"dark")
        return ThemeMode::Dark;
    if (mode == u"system")
        return ThemeMode::System;
    return std::nullopt;
}

ThemeMode chosenThemeMode(const QString &environment, const QString &setting)
{
    if (const std::optional<ThemeMode> fromEnvironment = parseThemeMode(environment))
        return *fromEnvironment;
    return parseThemeMode(setting).value_or(ThemeMode::System);
}

bool desktopPrefersDark(const DesktopThemeHints &hints)
{
    // GTK_THEME=Name:variant; a variant, or else the name, says it.
    const QString gtkTheme = hints.gtkThemeEnvironment.trimmed().toLower();
    if (!gtkTheme.isEmpty()) {
        const qsizetype colon = gtkTheme.indexOf(u':');
        if (colon >= 0 && colon + 1 < gtkTheme.size())
            return gtkTheme.mid(colon + 1) == u"dark";
        return gtkTheme.contains(u"dark");
    }
    const QString scheme = unquoted(hints.colorScheme).toLower();
    if (scheme == u"prefer-dark")
        return true;
    if (scheme == u"prefer-light")
        return false;
    if (unquoted(hints.gtkThemeName).toLower().contains(u"dark"))
        return true;
    return hints.paletteDark;
}

DesktopThemeHints readDesktopThemeHints()
{
    DesktopThemeHints hints;
    hints.gtkThemeEnvironment = qEnvironmentVariable("GTK_THEME");
    if (hints.gtkThemeEnvironment.isEmpty()) {
        const QString schema = QStringLiteral("org.gnome.desktop.interface");
        hints.colorScheme = gsettingsValue(schema, QStringLiteral("color-scheme"));
        const QString scheme = unquoted(hints.colorScheme);
        if (scheme != u"prefer-dark" && scheme != u"prefer-light")
            hints.gtkThemeName = gsettingsValue(schema, QStringLiteral("gtk-theme"));
    }
    hints.paletteDark = SystemTheme::isDark(QGuiApplication::palette());
    return hints;
}

QPalette lightPalette()
{
    const std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    return fusion ? fusion->standardPalette() : QPalette(QColor(0xef, 0xef, 0xef));
}

QPalette darkPalette()
{
    const QColor window(0x2d, 0x2d, 0x30);
    const QColor base(0x1e, 0x1e, 0x21);
    const QColor text(0xe8, 0xe8, 0xe8);
    const QColor disabled(0x7a, 0x7a, 0x7a);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x29));
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3a, 0x3e));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x90, 0x90, 0x90));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x3a, 0x3a, 0x3e));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x4a, 0x4a, 0x4f));
    p.setColor(QPalette::Midlight, QColor(0x40, 0x40, 0x44));
    p.setColor(QPalette::Mid, QColor(0x55, 0x55, 0x5a));
    p.setColor(QPalette::Dark, QColor(0x1a, 0x1a, 0x1c));
    p.setColor(QPalette::Shadow, QColor(0x10, 0x10, 0x10));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xd6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb0, 0x8c, 0xff));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    p.setColor(QPalette::Disabled, QPalette::Button, QColor(0x33, 0x33, 0x36));
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x50, 0x55));
    return p;
}

bool applyThemeMode(ThemeMode mode, const DesktopThemeHints &hints)
{
    const bool dark = mode == ThemeMode::Dark || (mode == ThemeMode::System && desktopPrefersDark(hints));
    if (SystemTheme::isDark(QGuiApplication::palette()) != dark)
        QGuiApplication::setPalette(dark ? darkPalette() : lightPalette());
    return dark;
}

} // namespace sy::app
