-- Acquires a lease if it is free, released or expired on this server's clock.
--   KEYS[1] record, KEYS[2] token counter, KEYS[3] history stream, KEYS[4] waiters marker
--   ARGV[1] holder, ARGV[2] TTL in milliseconds, ARGV[3] history length kept (approximately)
-- Answers {'acquired', reason, record...} or, when someone else holds the lease,
-- {'held', '', record...}.
--
-- The token is max(last + 1, now in microseconds), where last is the highest token this lease
-- shows anywhere: the counter, the record and the newest history entry. The counter alone would
-- restart at zero once the dataset is lost (a restart without persistence, a failover to a
-- replica that missed writes); the clock term keeps the next token above every token issued
-- before, as long as this server's clock has not gone back by more than the time since the
-- last acquisition.
local now_us = clock_us()
local now = math.floor(now_us / 1000)
local ttl = tonumber(ARGV[2])
local record = read_record(KEYS[1])

if held(record, now) then
    -- A refused contender waits: the holder's release will announce it. The mark lasts until
    -- the lease's expiry plus the contender's TTL, by which time it has asked again.
    local wanted = tonumber(record[5]) - now + ttl
    if wanted > redis.call('PTTL', KEYS[4]) then
        redis.call('SET', KEYS[4], '1', 'PX', wanted)
    end
    return { 'held', '', unpack(record) }
end

-- The reason, and when the previous term ended: the release (its expiry is the release's
-- instant) when it was released, else the previous holder's last renewal.
local reason = 'fresh'
local ended = nil
if record[7] == 'graceful' then
    reason, ended = 'handover', record[5]
elseif record[7] == 'forced' then
    reason, ended = 'forced_release', record[5]
elseif record[2] then
    reason, ended = 'expired_takeover', record[4]
end

local last = math.max(tonumber(redis.call('GET', KEYS[2]) or 0), tonumber(record[2] or 0))
local newest = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)[1]
if newest then
    last = math.max(last, tonumber(string.match(newest[1], '^%d+')))
end
local token = digits(math.max(last + 1, now_us))

local entry = { 'holder', ARGV[1], 'reason', reason, 'at', digits(now) }
if ended then
    table.insert(entry, 'ended')
    table.insert(entry, ended)
end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], token .. '-0', unpack(entry))
redis.call('SET', KEYS[2], token)
local granted = { ARGV[1], token, digits(now), digits(now), digits(now + ttl), ARGV[2], false }
redis.call('HSET', KEYS[1], 'holder', granted[1], 'token', granted[2], 'acquired_at', granted[3],
    'renewed_at', granted[4], 'expires_at', granted[5], 'ttl', granted[6])
redis.call('HDEL', KEYS[1], 'released')
return { 'acquired', reason, unpack(granted) }
