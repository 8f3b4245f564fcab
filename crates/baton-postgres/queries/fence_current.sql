-- Reads the token a resource's fence stands at.
--   $1 resource.
SELECT token FROM baton_fences WHERE resource = $1
