// Choices: every value a dashboard list offers is one the configuration loader (or the outage
// parser) accepts, and the loader refuses a value next to them — so the lists and the
// validation cannot drift apart silently.
#include "Choices.h"
#include "config/ConfigLoader.h"
#include "failover/OutagePlan.h"

#include <gmock/gmock.h>

using sy::app::Choices;

namespace {

bool channelLoads(const QString &field, const QString &value)
{
    const QByteArray text = QStringLiteral("channels:\n"
                                           "  - id: c1\n"
                                           "    provider: p\n"
                                           "    base_url: https://up.example/v1\n"
                                           "    %1: %2\n"
                                           "    models:\n"
                                           "      - id: m1\n").arg(field, value).toUtf8();
    return sy::config::loadConfigText(text, QStringLiteral("choices.yaml"), QProcessEnvironment()).ok();
}

bool capabilityLoads(const QString &capability)
{
    const QByteArray text = QStringLiteral("models:\n"
                                           "  - id: m1\n"
                                           "    capabilities: [%1]\n").arg(capability).toUtf8();
    return sy::config::loadConfigText(text, QStringLiteral("choices.yaml"), QProcessEnvironment()).ok();
}

TEST(ChoicesTest, ChannelListsAreWhatTheLoaderAccepts)
{
    const std::pair<QString, QStringList> lists[] = {{QStringLiteral("format"), Choices::formats()},
                                                     {QStringLiteral("tier"), Choices::tiers()},
                                                     {QStringLiteral("data_collection"), Choices::dataCollection()}};
    for (const auto &[field, values] : lists) {
        ASSERT_FALSE(values.isEmpty()) << field.toStdString();
        for (const QString &value : values)
            EXPECT_TRUE(channelLoads(field, value)) << field.toStdString() << ": " << value.toStdString();
        EXPECT_FALSE(channelLoads(field, QStringLiteral("bogus"))) << field.toStdString() << " validates at all";
    }
}

TEST(ChoicesTest, CapabilitiesAreWhatTheLoaderAccepts)
{
    for (const QString &capability : Choices::capabilities())
        EXPECT_TRUE(capabilityLoads(capability)) << capability.toStdString();
    EXPECT_FALSE(capabilityLoads(QStringLiteral("telepathy")));
}

TEST(ChoicesTest, OutageKindsAreWhatTheFailureLabParses)
{
    const QStringList values = Choices::outageKindValues();
    ASSERT_EQ(values.size(), Choices::outageKinds().size());
    for (const QString &value : values)
        EXPECT_TRUE(sy::failover::parseOutageKind(value).has_value()) << value.toStdString();
    EXPECT_FALSE(sy::failover::parseOutageKind(QStringLiteral("bogus")).has_value());
}

} // namespace
