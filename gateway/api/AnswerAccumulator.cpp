#include "api/AnswerAccumulator.h"

namespace sy::api {

void AnswerAccumulator::add(const StreamEvent &event)
{
    switch (event.kind) {
    case StreamEvent::Kind::Start:
        m_answer.id = event.id;
        m_answer.model = event.model;
        if (event.usage.known)
            m_answer.usage = event.usage;
        return;
    case StreamEvent::Kind::BlockStart: {
        ContentPart part;
        part.kind = event.blockKind;
        part.toolCallId = event.toolCallId;
        part.toolName = event.toolName;
        m_answer.parts.append(part);
        m_blockIndexes.append(event.index);
        return;
    }
    case StreamEvent::Kind::Delta: {
        const qsizetype at = m_blockIndexes.lastIndexOf(event.index);
        if (at < 0)
            return;   // a delta of a block that never started: nothing to join it to
        ContentPart &part = m_answer.parts[at];
        part.text += event.text;
        part.argumentsJson += event.argumentsDelta;
        part.signature += event.signature;
        return;
    }
    case StreamEvent::Kind::BlockStop:
        return;
    case StreamEvent::Kind::Finish:
        m_answer.stopReason = event.stopReason;
        m_answer.stopSequence = event.stopSequence;
        if (event.usage.known)
            m_answer.usage = event.usage;
        m_finished = true;
        return;
    }
}

} // namespace sy::api
