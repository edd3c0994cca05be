#include "SystemTheme.h"

#include <QCoreApplication>
#include <QEvent>
#include <QGuiApplication>

namespace sy::app {

SystemTheme::SystemTheme(QObject *parent)
    : QObject(parent)
    , m_dark(isDark(QGuiApplication::palette()))
{
    qApp->installEventFilter(this);
}

bool SystemTheme::isDark(const QPalette &palette)
{
    return palette.color(QPalette::Active, QPalette::Window).lightnessF() < 0.5;
}

bool SystemTheme::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == qApp && event->type() == QEvent::ApplicationPaletteChange) {
        m_dark = isDark(QGuiApplication::palette());
        emit changed();
    }
    return QObject::eventFilter(watched, event);
}

} // namespace sy::app
