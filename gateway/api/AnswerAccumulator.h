#pragma once
// AnswerAccumulator: the whole canonical answer a canonical stream adds up to (text and thinking
// deltas joined per block, tool-call arguments joined, the Finish's stop reason and usage). For
// writers that must repeat the whole answer at the end (OpenAI Responses' response.completed) and
// for storing an answer that was streamed. Gateway thread; one per stream.
#include "api/Canonical.h"

namespace sy::api {

class AnswerAccumulator {
public:
    void add(const StreamEvent &event);
    // True once a Finish was added.
    bool finished() const { return m_finished; }
    const CanonicalAnswer &answer() const { return m_answer; }

private:
    CanonicalAnswer m_answer;
    QList<int> m_blockIndexes;   // canonical block index of each part, in order
    bool m_finished = false;
};

} // namespace sy::api
