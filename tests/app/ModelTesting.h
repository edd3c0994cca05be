#pragma once
// Helpers for model tests: every model under test is watched by QAbstractItemModelTester, which
// fails the test (fatally) on any broken model invariant.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSet>

namespace sy::test {

// The roles of every dataChanged emission recorded by `spy`.
inline QSet<int> changedRoles(const QSignalSpy &spy)
{
    QSet<int> roles;
    for (const QList<QVariant> &args : spy) {
        for (int role : args.at(2).value<QList<int>>())
            roles.insert(role);
    }
    return roles;
}

} // namespace sy::test
