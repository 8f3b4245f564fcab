-- Reads the token a resource's fence stands at.
--   ? resource.
SELECT token FROM baton_fences WHERE resource = ?
