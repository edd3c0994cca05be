// ThemeChoice: which mode is chosen, what the desktop's hints say, and that applying a mode
// sets a palette of that lightness (and leaves a fitting one alone).
#include "SystemTheme.h"
#include "ThemeChoice.h"

#include <QGuiApplication>
#include <gtest/gtest.h>

namespace sy::app {
namespace {

TEST(ThemeChoiceTest, ModesAreParsedInAnyCase)
{
    EXPECT_EQ(parseThemeMode(QStringLiteral("dark")), ThemeMode::Dark);
    EXPECT_EQ(parseThemeMode(QStringLiteral(" Light ")), ThemeMode::Light);
    EXPECT_EQ(parseThemeMode(QStringLiteral("SYSTEM")), ThemeMode::System);
    EXPECT_EQ(parseThemeMode(QStringLiteral("solarized")), std::nullopt);
    EXPECT_EQ(parseThemeMode(QString()), std::nullopt);
}

TEST(ThemeChoiceTest, TheEnvironmentWinsOverTheSettingAndSystemIsTheDefault)
{
    EXPECT_EQ(chosenThemeMode(QStringLiteral("dark"), QStringLiteral("light")), ThemeMode::Dark);
    EXPECT_EQ(chosenThemeMode(QString(), QStringLiteral("light")), ThemeMode::Light);
    EXPECT_EQ(chosenThemeMode(QStringLiteral("bogus"), QStringLiteral("dark")), ThemeMode::Dark);
    EXPECT_EQ(chosenThemeMode(QString(), QString()), ThemeMode::System);
    EXPECT_EQ(chosenThemeMode(QStringLiteral("system"), QStringLiteral("dark")), ThemeMode::System);
}

TEST(ThemeChoiceTest, GtkThemeVariantOrNameSaysDark)
{
    EXPECT_TRUE(desktopPrefersDark({QStringLiteral("Adwaita:dark"), {}, {}, false}));
    EXPECT_FALSE(desktopPrefersDark({QStringLiteral("Adwaita:light"), QStringLiteral("'prefer-dark'"), {}, true}))
        << "the environment's answer comes first";
    EXPECT_TRUE(desktopPrefersDark({QStringLiteral("Yaru-dark"), {}, {}, false}));
    EXPECT_FALSE(desktopPrefersDark({QStringLiteral("Adwaita"), {}, {}, true}));
}

TEST(ThemeChoiceTest, ColorSchemeThenGtkThemeNameThenThePalette)
{
    EXPECT_TRUE(desktopPrefersDark({{}, QStringLiteral("'prefer-dark'"), {}, false}));
    EXPECT_FALSE(desktopPrefersDark({{}, QStringLiteral("'prefer-light'"), QStringLiteral("'Adwaita-dark'"), true}));
    EXPECT_TRUE(desktopPrefersDark({{}, QStringLiteral("'default'"), QStringLiteral("'Adwaita-dark'"), false}));
    EXPECT_FALSE(desktopPrefersDark({{}, QStringLiteral("'default'"), QStringLiteral("'Adwaita'"), false}));
    EXPECT_TRUE(desktopPrefersDark({{}, {}, {}, true})) << "a platform theme's dark palette";
    EXPECT_FALSE(desktopPrefersDark({}));
}

TEST(ThemeChoiceTest, ApplyingAModeSetsAPaletteOfThatLightness)
{
    const QPalette before = QGuiApplication::palette();
    ASSERT_FALSE(SystemTheme::isDark(before)) << "the tests start light";
    EXPECT_TRUE(SystemTheme::isDark(darkPalette()));
    EXPECT_FALSE(SystemTheme::isDark(lightPalette()));
    EXPECT_GT(darkPalette().color(QPalette::Text).lightnessF(), 0.5) << "light text on dark";

    EXPECT_FALSE(applyThemeMode(ThemeMode::Light, {}));
    EXPECT_EQ(QGuiApplication::palette().color(QPalette::Window), before.color(QPalette::Window))
        << "a light palette is kept as it is";
    EXPECT_TRUE(applyThemeMode(ThemeMode::System, {{}, QStringLiteral("'prefer-dark'"), {}, false}));
    EXPECT_TRUE(SystemTheme::isDark(QGuiApplication::palette()));
    EXPECT_FALSE(applyThemeMode(ThemeMode::Light, {{}, QStringLiteral("'prefer-dark'"), {}, false}));
    EXPECT_FALSE(SystemTheme::isDark(QGuiApplication::palette()));
    QGuiApplication::setPalette(before);
}

} // namespace
} // namespace sy::app
