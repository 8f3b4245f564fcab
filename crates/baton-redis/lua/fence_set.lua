-- Fenced write: sets a value only if the writer's fencing token is at least the highest token
-- the resource has accepted, and raises the fence to that token.
--   KEYS[1] fence key, KEYS[2] data key (keep both in one hash slot: "{ledger}:fence",
--   "{ledger}:data")
--   ARGV[1] fencing token (decimal, as issued), ARGV[2] value
-- Answers 1 when written, 0 when the token is stale (a newer holder has written).
local token = ARGV[1]
if not string.match(token, '^[1-9]%d*$') then
    return redis.error_reply('invalid fencing token "' .. token .. '": expected a positive integer')
end
local seen = redis.call('GET', KEYS[1])
-- Decimal strings without leading zeros: the longer one is larger, else compare as text.
if seen and (#seen > #token or (#seen == #token and seen > token)) then
    return 0
end
redis.call('SET', KEYS[1], token)
redis.call('SET', KEYS[2], ARGV[2])
return 1
