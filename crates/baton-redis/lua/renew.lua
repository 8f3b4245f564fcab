-- Extends one lease by its TTL: compare-and-set on (holder, token), refused once the lease has
-- expired on this server's clock.
--   KEYS[1] record
--   ARGV[1] holder, ARGV[2] token
-- Answers the renewed record, or an empty array when the caller no longer holds the lease.
return renew_held(KEYS[1], ARGV[1], ARGV[2], clock_ms()) or {}
