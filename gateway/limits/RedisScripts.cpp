#include "limits/RedisScripts.h"

namespace sy::limits::redis_scripts {

// Same rules as KeyLimiter: an admission at t counts while now < t + 60 s; a window keeps only
// its newest `limit` admissions; when several limits refuse, the longest retry-after wins (ties:
// key_rpm, model_rpm, key_concurrency); a concurrency refusal suggests 1000 ms. Expired leases
// (a dead instance's slots) are dropped before counting.
const QByteArray kAcquire = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = 60000
local keyRpm, modelRpm, maxConcurrent = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local member, lease = ARGV[4], tonumber(ARGV[5])
local function rpmWait(key, limit)
  if limit <= 0 then return 0 end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local n = redis.call('ZCARD', key)
  if n < limit then return 0 end
  local blocking = redis.call('ZRANGE', key, n - limit, n - limit, 'WITHSCORES')
  return tonumber(blocking[2]) + window - now
end
local waitMs, reason = 0, ''
local w = rpmWait(KEYS[1], keyRpm)
if w > waitMs then waitMs, reason = w, 'key_rpm' end
w = rpmWait(KEYS[2], modelRpm)
if w > waitMs then waitMs, reason = w, 'model_rpm' end
if maxConcurrent > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZCARD', KEYS[3]) >= maxConcurrent and 1000 > waitMs then waitMs, reason = 1000, 'key_concurrency' end
end
if reason ~= '' then return {0, reason, waitMs} end
local function record(key, limit)
  if limit <= 0 then return end
  redis.call('ZADD', key, now, member)
  redis.call('ZREMRANGEBYRANK', key, 0, -(limit + 1))
  redis.call('PEXPIRE', key, window)
end
record(KEYS[1], keyRpm)
record(KEYS[2], modelRpm)
if maxConcurrent > 0 then
  redis.call('ZADD', KEYS[3], now + lease, member)
  redis.call('PEXPIRE', KEYS[3], lease * 2)
end
return {1, '', now}
)lua";

const QByteArray kRenew = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
local renewed = 0
for i = 2, #ARGV do
  renewed = renewed + redis.call('ZADD', KEYS[1], 'XX', 'CH', now + lease, ARGV[i])
end
if renewed > 0 then redis.call('PEXPIRE', KEYS[1], lease * 2) end
return renewed
)lua";

} // namespace sy::limits::redis_scripts
