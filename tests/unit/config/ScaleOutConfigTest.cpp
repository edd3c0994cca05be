// The scale-out fields of the configuration (docs/scale-out-redis.md): listen_reuse_port,
// instance_name, redis, redis_unreachable, redis_lease_s — read, checked, written back, and the
// Redis password kept out of error texts and exports without secrets.
#include "config/ConfigLoader.h"
#include "config/ConfigWriter.h"
#include "config/RedisUrl.h"

#include <gtest/gtest.h>

using namespace sy::config;

namespace {

constexpr char kChannel[] = "channels:\n  - {id: c1, provider: p, base_url: 'http://h/v1', models: [{id: m1}]}\n";

LoadResult load(const QByteArray &head, const QProcessEnvironment &env = {})
{
    return loadConfigText(head + kChannel, "test", env);
}

} // namespace

TEST(ScaleOutConfig, DefaultsKeepEveryInstanceOnItsOwn)
{
    const LoadResult r = load("");
    ASSERT_TRUE(r.config);
    EXPECT_FALSE(r.config->listenReusePort);
    EXPECT_TRUE(r.config->instanceName.isEmpty());
    EXPECT_TRUE(r.config->redis.isEmpty());
    EXPECT_EQ(r.config->redisUnreachable, "local");
    EXPECT_EQ(r.config->redisLeaseS, 30);
}

TEST(ScaleOutConfig, FieldsAreReadAndRoundTrip)
{
    QProcessEnvironment env;
    env.insert("REDIS_PASSWORD", "pw-canary-91");
    const LoadResult r = load("listen_reuse_port: true\ninstance_name: gw-a\n"
                              "redis: redis://:${REDIS_PASSWORD}@127.0.0.1:6380/2\n"
                              "redis_unreachable: fail_closed\nredis_lease_s: 5\n", env);
    ASSERT_TRUE(r.config) << (r.errors.empty() ? "" : r.errors.front().toString().toStdString());
    EXPECT_TRUE(r.config->listenReusePort);
    EXPECT_EQ(r.config->instanceName, "gw-a");
    EXPECT_EQ(r.config->redis, "redis://:pw-canary-91@127.0.0.1:6380/2");
    EXPECT_EQ(r.config->redisUnreachable, "fail_closed");
    EXPECT_EQ(r.config->redisLeaseS, 5);

    const WriteResult yaml = writeConfigYaml(*r.config, Secrets::Include);
    ASSERT_TRUE(yaml.document);
    const LoadResult back = loadConfigText(*yaml.document, "written", {});
    ASSERT_TRUE(back.config);
    EXPECT_TRUE(*back.config == *r.config);

    const WriteResult omitted = writeConfigYaml(*r.config, Secrets::Omit);
    ASSERT_TRUE(omitted.document);
    EXPECT_FALSE(omitted.document->contains("pw-canary-91")) << omitted.document->toStdString();
    EXPECT_TRUE(omitted.document->contains("redis://:***@127.0.0.1:6380/2")) << omitted.document->toStdString();
}

TEST(ScaleOutConfig, BadValuesNameLineAndField)
{
    struct Row { QByteArray text; const char *field; const char *message; };
    const Row rows[] = {
        {"redis: http://127.0.0.1:6379\n", "redis", "expected redis://"},
        {"redis: redis://127.0.0.1:70000\n", "redis", "port"},
        {"redis_unreachable: open\n", "redis_unreachable", "fail_closed"},
        {"redis_lease_s: 1\n", "redis_lease_s", ""},
        {"instance_name: ''\n", "instance_name", "must not be empty"},
        {"listen_reuse_port: maybe\n", "listen_reuse_port", ""},
    };
    for (const Row &row : rows) {
        const LoadResult r = load(row.text);
        EXPECT_FALSE(r.config) << row.text.toStdString();
        ASSERT_FALSE(r.errors.empty()) << row.text.toStdString();
        EXPECT_EQ(r.errors.front().line, 1) << row.text.toStdString();
        EXPECT_EQ(r.errors.front().field, row.field) << row.text.toStdString();
        EXPECT_TRUE(r.errors.front().message.contains(row.message)) << r.errors.front().toString().toStdString();
    }
}

TEST(ScaleOutConfig, BadRedisUrlNeverEchoesThePassword)
{
    const LoadResult r = load("redis: redis://:pw-canary-17@host:bad\n");
    ASSERT_FALSE(r.errors.empty());
    EXPECT_FALSE(r.errors.front().toString().contains("pw-canary-17")) << r.errors.front().toString().toStdString();
}

TEST(RedisUrl, Forms)
{
    auto e = parseRedisUrl("redis://127.0.0.1");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->host, "127.0.0.1");
    EXPECT_EQ(e->port, 6379);
    EXPECT_EQ(e->db, 0);
    EXPECT_TRUE(e->password.isEmpty());

    e = parseRedisUrl("redis://:s%40cret@[::1]:6390/3");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->host, "::1");
    EXPECT_EQ(e->port, 6390);
    EXPECT_EQ(e->db, 3);
    EXPECT_TRUE(e->username.isEmpty());
    EXPECT_EQ(e->password, "s@cret");

    e = parseRedisUrl("redis://team:pw@cache.internal:6379/");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->username, "team");
    EXPECT_EQ(e->password, "pw");

    e = parseRedisUrl("redis://onlypassword@localhost:6379");
    ASSERT_TRUE(e);
    EXPECT_TRUE(e->username.isEmpty());
    EXPECT_EQ(e->password, "onlypassword");

    EXPECT_FALSE(parseRedisUrl("rediss://host:6379"));
    EXPECT_FALSE(parseRedisUrl("redis://"));
    EXPECT_EQ(redactedRedisUrl("redis://:pw@h:1/0"), "redis://:***@h:1/0");
    EXPECT_EQ(redactedRedisUrl("redis://u:pw@h:1"), "redis://u:***@h:1");
    EXPECT_EQ(redactedRedisUrl("redis://h:1"), "redis://h:1");
}
