-- Shared by every lease script: prepended to each when the scripts are loaded.
--
-- A lease record is a hash with the fields of FIELDS. Instants are milliseconds since the Unix
-- epoch on this server's clock (TIME), never a client's. Every script answers a record as the
-- seven values of FIELDS in that order, false (a nil reply) for a missing field.

local FIELDS = { 'holder', 'token', 'acquired_at', 'renewed_at', 'expires_at', 'ttl', 'released' }

-- This server's clock, in microseconds since the Unix epoch (exact in a Lua number until the
-- year 2255).
local function clock_us()
    local time = redis.call('TIME')
    return tonumber(time[1]) * 1000000 + tonumber(time[2])
end

-- This server's clock, in milliseconds since the Unix epoch.
local function clock_ms()
    return math.floor(clock_us() / 1000)
end

-- An integer as plain decimal digits (tostring would print 1.7e+15).
local function digits(n)
    return string.format('%.0f', n)
end

-- The record stored at key, as the values of FIELDS.
local function read_record(key)
    return redis.call('HMGET', key, unpack(FIELDS))
end

-- Whether the record has a holder whose lease has not expired at now_ms.
local function held(record, now_ms)
    return record[1] ~= false and tonumber(record[5]) > now_ms
end

-- Whether the record is held at now_ms by this holder under this token.
local function held_by(record, holder, token, now_ms)
    return held(record, now_ms) and record[1] == holder and record[2] == token
end

-- Extends the lease at key by its TTL if this holder holds it under this token; answers the
-- renewed record, or nil when the lease is lost.
local function renew_held(key, holder, token, now_ms)
    local record = read_record(key)
    if not held_by(record, holder, token, now_ms) then
        return nil
    end
    record[4] = digits(now_ms)
    record[5] = digits(now_ms + tonumber(record[6]))
    redis.call('HSET', key, 'renewed_at', record[4], 'expires_at', record[5])
    return record
end

-- Marks the lease at key released at now_ms, of kind 'graceful' or 'forced', and announces the
-- release on channel when waiters is set (a refused contender waits) or always is true.
local function free(key, waiters, now_ms, kind, channel, name, always)
    redis.call('HDEL', key, 'holder')
    redis.call('HSET', key, 'expires_at', digits(now_ms), 'released', kind)
    if redis.call('DEL', waiters) == 1 or always then
        redis.call('PUBLISH', channel, name)
    end
end
