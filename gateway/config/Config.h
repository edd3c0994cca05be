#pragma once
// The gateway's configuration: SPEC.md §12, as plain values. Produced by loadConfigFile() /
// loadConfigText() (ConfigLoader.h; yaml-cpp, JSON parses as YAML), validated as a whole; nothing
// half-loaded is ever returned. Field rules and defaults: docs/configuration.md.
#include <QByteArray>
#include <QDate>
#include <QString>
#include <QStringList>
#include <chrono>
#include <optional>
#include <vector>

namespace sy::config {

struct Price {
    double prompt = 0;       // per 1M tokens, workspace currency
    double completion = 0;   // per 1M tokens
};

struct ChannelModel {
    QString id;              // public model id
    QString upstream;        // name sent upstream; defaults to id
    Price price;
};

struct Timeouts {
    std::chrono::milliseconds connect{10'000};
    std::chrono::milliseconds firstByte{30'000};
    std::chrono::milliseconds idle{60'000};
};

// How the channel's connections are secured. Defaults: the system CA store, full verification.
struct Tls {
    QString caFile;                     // PEM bundle that replaces the system store; empty = system
    bool insecure = false;              // opt-in: no peer or host name verification
};

struct Channel {
    QString id;
    QString provider;
    QString baseUrl;         // without trailing slash, e.g. https://api.deepseek.com/v1
    QString format = "openai";          // openai | anthropic | gemini
    QStringList credentials;            // ordered; ${VAR} already expanded
    bool enabled = true;
    int maxConcurrent = 0;              // 0 = unlimited
    Timeouts timeouts;
    QString tier = "standard";          // standard | priority | flex
    QString quantization;               // empty = unknown
    QString dataCollection = "allow";   // allow | deny
    bool zdr = false;
    bool distillable = false;
    QStringList supportedParameters;
    std::vector<ChannelModel> models;
    // How a credential is sent: empty = the format's own way (openai: Authorization: Bearer,
    // anthropic: x-api-key); "bearer" | "x-api-key" | "api-key" (Azure OpenAI) override it.
    QString auth;
    Tls tls;
    // Proxy for this channel's connections (http://host:port); empty = the environment's
    // HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as curl reads them.
    QString proxy;
    int probeIntervalS = 0;             // periodic channel test; 0 = off
};

struct Model {
    QString id;
    bool enabled = true;
    bool free = false;
    QStringList capabilities{"chat"};   // chat, tools, vision, json, embeddings
    int contextLength = 0;              // 0 = unknown
    std::optional<QDate> deprecated;    // sunset date
    int rpmPerKey = 0;                  // 0 = no per-model limit
};

struct VirtualModel {
    QString id;
    QString primary;
    QStringList fallbacks;
};

struct Key {
    QString name;
    QByteArray secretSha256;            // lower-case hex SHA-256 of the secret
    int rpm = 0;                        // 0 = off
    int maxConcurrent = 0;              // 0 = off
    std::optional<double> spendLimit;
    QStringList allowedModels;          // empty = all
    bool enabled = true;
};

struct Settings {
    int firstChunkTimeoutS = 30;
    int keyLimitWaitS = 2;
    int capacityWaitS = 10;
    int retryPauseMs = 200;
    int maxAttempts = 0;                // 0 = every candidate
    qint64 maxBodyBytes = 16 * 1024 * 1024;
    // Request log retention (database and memory): 0 = no bound of that kind.
    int logRetentionDays = 30;
    int logRetentionCount = 100'000;
    // Opt-in: keep each request's messages and the answer's text with its log record.
    bool logMessageContent = false;
    // Longest a request may run from arrival to its last byte; a stream past it ends with the
    // interrupted-stream signal (SPEC §5), a plain request with 504.
    int maxRequestS = 3600;
    // Largest single upstream stream event; a larger one ends the attempt as malformed.
    qint64 maxStreamEventBytes = 1024 * 1024;
};

struct Config {
    QString listenHost = "127.0.0.1";
    quint16 listenPort = 8080;
    // Several instances on one port (SO_REUSEPORT on the listening socket); the kernel spreads
    // new connections between them.
    bool listenReusePort = false;
    // This instance's name in /metrics (`instance` label). Empty: the host name and the port.
    QString instanceName;
    // Per-key limits shared by every instance through Redis: redis://[[user]:password@]host:port[/db]
    // (parseRedisUrl() checks it). Empty: each instance keeps its own limits.
    QString redis;
    // What admission does while Redis cannot be reached: "local" (per-instance limits) or
    // "fail_closed" (503 for keys that have a limit).
    QString redisUnreachable = "local";
    // How long a concurrency slot outlives its instance's last renewal, in seconds.
    int redisLeaseS = 30;
    QString adminToken;                 // empty: generated at start
    QString database;                   // empty: default under the XDG data dir
    QString currency = "USD";
    // Prepaid credit in `currency`. Absent: the workspace is not metered (charges are still
    // booked in the ledger, but no request is refused for money).
    std::optional<double> balance;
    std::optional<QString> defaultModel;
    Settings settings;
    std::vector<Channel> channels;
    std::vector<Model> models;
    std::vector<VirtualModel> virtualModels;
    std::vector<Key> keys;
};

} // namespace sy::config
