-- Releases a lease gracefully: compare-and-set on (holder, token), refused once the lease has
-- expired. The record keeps its token. A refused contender is told through PUBLISH; an
-- uncontended release announces nothing.
--   KEYS[1] record, KEYS[2] waiters marker
--   ARGV[1] holder, ARGV[2] token, ARGV[3] release channel, ARGV[4] lease name
-- Answers 1 when released, 0 when the caller no longer held the lease.
local now = clock_ms()
if not held_by(read_record(KEYS[1]), ARGV[1], ARGV[2], now) then
    return 0
end
free(KEYS[1], KEYS[2], now, 'graceful', ARGV[3], ARGV[4], false)
return 1
