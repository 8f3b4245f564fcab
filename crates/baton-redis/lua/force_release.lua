-- Frees a lease whoever holds it (an operator's action) and announces the release.
--   KEYS[1] record, KEYS[2] waiters marker
--   ARGV[1] release channel, ARGV[2] lease name
-- Answers the record as it was, or an empty array when nobody held the lease.
local now = clock_ms()
local record = read_record(KEYS[1])
if not held(record, now) then
    return {}
end
free(KEYS[1], KEYS[2], now, 'forced', ARGV[1], ARGV[2], true)
return record
