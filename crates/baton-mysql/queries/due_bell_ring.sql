-- Rings the due doorbell kept at one generation: takes the other generation's named lock
-- first, then lets go of the kept one, which wakes every session blocked on it (evaluated left
-- to right). Answers whether the other generation was taken (this session keeps the doorbell
-- on) or not (a waiter held it for an instant: the doorbell is left unkept).
--   ? next generation's lock, kept generation's lock.
SELECT COALESCE(GET_LOCK(?, 0), 0) AS kept, RELEASE_LOCK(?) AS released
