#pragma once
// Readable GoogleTest output for Qt strings (found by argument-dependent lookup, so global).
// Every test file of this folder includes it: gtest's printer templates are inline, so a file
// without these overloads would instantiate a byte-dump printer that the linker may keep.
#include <QString>
#include <QStringList>
#include <ostream>

inline void PrintTo(const QString &text, std::ostream *os)
{
    *os << '"' << text.toStdString() << '"';
}

inline void PrintTo(const QStringList &list, std::ostream *os)
{
    *os << '[' << list.join(QStringLiteral(", ")).toStdString() << ']';
}
