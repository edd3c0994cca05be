#pragma once
// ThemeChoice: light or dark at start. Qt 6.4's Fusion style starts with its light palette
// whatever the desktop prefers, so the app picks the palette itself once the window is made and
// before it is shown (Qt Quick Controls 6.4 picks up a palette set earlier only at its next change):
//  - the mode: SWITCHYARD_THEME (light | dark | system) when set, else the dashboard setting
//    appearance/theme (same values), else system;
//  - "system" asks the desktop, first answer wins: GTK_THEME (a ":dark" variant or a name with
//    "dark" in it), the GNOME/GTK colour scheme (gsettings org.gnome.desktop.interface
//    color-scheme: 'prefer-dark' or 'prefer-light'; 'default' says nothing), the gtk-theme
//    name with "dark" in it, and last the platform theme's own palette (KDE, qt6ct set one).
// The QML pages draw with the palette's colours, so setting it switches backgrounds, cards,
// text and charts at once. Changes while the app runs are SystemTheme's business.
//
// Thread: the UI thread (it sets the application palette). The parsing functions are pure.
#include <QPalette>
#include <QString>
#include <optional>

namespace sy::app {

enum class ThemeMode { System, Light, Dark };

// "light", "dark" or "system" (any case, spaces around ignored); anything else is no choice.
std::optional<ThemeMode> parseThemeMode(const QString &text);

// The mode from SWITCHYARD_THEME's value (`environment`), else from the setting, else System.
// A value that is not a mode is ignored (and so is the next source only when it is not one either).
ThemeMode chosenThemeMode(const QString &environment, const QString &setting);

// What the desktop says about light and dark.
struct DesktopThemeHints {
    QString gtkThemeEnvironment;   // $GTK_THEME, e.g. "Adwaita:dark"
    QString colorScheme;           // gsettings output, e.g. "'prefer-dark'"
    QString gtkThemeName;          // gsettings output, e.g. "'Adwaita-dark'"
    bool paletteDark = false;      // the platform theme's palette is dark
};

// Whether the desktop prefers dark, from the hints in the order above.
bool desktopPrefersDark(const DesktopThemeHints &hints);

// This desktop's hints: the environment, gsettings (each call bounded to a second; no
// gsettings, no answer) and the application palette as the platform theme set it.
DesktopThemeHints readDesktopThemeHints();

// Fusion's own light palette, and a dark one with every role set.
QPalette lightPalette();
QPalette darkPalette();

// Sets the application palette for `mode` (System: as `hints` say) when it is not already of
// that lightness; a platform palette of the right lightness is kept. Returns whether dark.
bool applyThemeMode(ThemeMode mode, const DesktopThemeHints &hints);

} // namespace sy::app
