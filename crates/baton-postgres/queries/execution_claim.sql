-- Claims due executions for a worker: see baton_claim_executions (migrations 0009 and 0010).
--   $1 node, $2 most candidates examined, $3 job names (empty: any job), $4 most started,
--   $5 how far ahead (ms) executions not yet due are claimed.
SELECT * FROM baton_claim_executions($1::TEXT, $2::BIGINT, $3::TEXT[], $4::BIGINT, $5::BIGINT)
