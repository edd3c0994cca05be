#pragma once
// Choices: the fixed sets a dashboard form offers — channel formats, tiers, data collection
// values, how a key is sent, model capabilities, failure-lab outage kinds — listed once, here,
// for every QML list. They are the values the configuration loader and the admin API accept;
// tests/app/ChoicesTest.cpp holds them to the loader's and the outage parser's answers, so a
// value added there and not here (or the other way round) fails a test.
//
// A QML singleton of the Switchyard.Dashboard module. Thread: the UI thread; the lists never change.
#include <QObject>
#include <QStringList>
#include <QVariantList>
#include <QtQml/qqmlregistration.h>

namespace sy::app {

class Choices : public QObject {
    Q_OBJECT
    QML_ELEMENT
    QML_SINGLETON
    // A channel's `format` (an upstream dialect exists for each).
    Q_PROPERTY(QStringList formats READ formats CONSTANT)
    // A channel's `tier`.
    Q_PROPERTY(QStringList tiers READ tiers CONSTANT)
    // A channel's `data_collection`.
    Q_PROPERTY(QStringList dataCollection READ dataCollection CONSTANT)
    // A channel's `auth` (how the key is sent); "" = the format's own way.
    Q_PROPERTY(QStringList keyStyles READ keyStyles CONSTANT)
    // A model's `capabilities`.
    Q_PROPERTY(QStringList capabilities READ capabilities CONSTANT)
    // Failure-lab outage kinds as {text, value}; `value` is what POST /admin/outages takes.
    Q_PROPERTY(QVariantList outageKinds READ outageKinds CONSTANT)
public:
    explicit Choices(QObject *parent = nullptr) : QObject(parent) {}

    static QStringList formats();
    static QStringList tiers();
    static QStringList dataCollection();
    static QStringList keyStyles();
    static QStringList capabilities();
    static QVariantList outageKinds();
    static QStringList outageKindValues();
};

} // namespace sy::app
