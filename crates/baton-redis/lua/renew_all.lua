-- Extends every listed lease of one holder, each by its own TTL, in one call.
--   KEYS[i] record of the i-th lease
--   ARGV[1] holder, ARGV[i + 1] token of the i-th lease
-- Answers seven values per lease, in order: its renewed record, or seven nils when it is lost.
local now = clock_ms()
local answer = {}
for i, key in ipairs(KEYS) do
    local record = renew_held(key, ARGV[1], ARGV[i + 1], now) or {}
    for field = 1, #FIELDS do
        answer[#answer + 1] = record[field] or false
    end
end
return answer
