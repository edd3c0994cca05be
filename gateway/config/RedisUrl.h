#pragma once
// The `redis:` setting: redis://[[user]:password@]host:port[/db] (host a name, an IPv4 address or
// a bracketed IPv6 one; port default 6379; db default 0). `${NAME}` is expanded by the loader
// before this sees the text, so a password can come from the environment.
//
// Thread: any (pure functions).
#include <QString>
#include <optional>

namespace sy::config {

struct RedisEndpoint {
    QString host;
    int port = 6379;
    QString username;   // empty: the default user (AUTH password)
    QString password;   // empty: no AUTH
    int db = 0;
};

// The endpoint of `url`, or nothing with what is wrong in `problem` (which never contains the
// password).
std::optional<RedisEndpoint> parseRedisUrl(const QString &url, QString *problem = nullptr);

// `url` with its password replaced by "***", for messages, logs and exports without secrets.
QString redactedRedisUrl(const QString &url);

} // namespace sy::config
