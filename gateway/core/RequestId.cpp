#include "core/RequestId.h"

#include <QRandomGenerator>

namespace sy {

QByteArray newRequestId()
{
    quint64 words[2];
    QRandomGenerator::system()->fillRange(words);
    return "req_" + QByteArray::number(words[0], 16).rightJustified(16, '0')
        + QByteArray::number(words[1] & 0xffff, 16).rightJustified(4, '0');
}

} // namespace sy
