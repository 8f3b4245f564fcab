-- Locks the rows of the jobs a batch with missed runs names for the rest of the batch's
-- transaction, in name order, excluding every other batch of those jobs, so that the batch's
-- statement reads every fire and missed run committed before it, and no batch records one
-- meanwhile.
--   $1 job names.
SELECT j.name
FROM baton_jobs AS j
WHERE j.name = ANY ($1::TEXT[])
ORDER BY j.name
FOR UPDATE
