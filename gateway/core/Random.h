#pragma once
// Randomness for policies (weighted channel draws). Injected, so tests seed it or script it.
#include <QRandomGenerator>

namespace sy {

class Random {
public:
    virtual ~Random() = default;
    // Uniform in [0, 1). Thread: the owner's.
    virtual double uniform() = 0;
};

// Deterministic for a given seed (tests, simulations); seeded from the system for production.
class SeededRandom final : public Random {
public:
    explicit SeededRandom(quint32 seed) : m_generator(seed) {}
    static SeededRandom fromSystem() { return SeededRandom(QRandomGenerator::system()->generate()); }
    double uniform() override { return m_generator.generateDouble(); }

private:
    QRandomGenerator m_generator;
};

} // namespace sy
