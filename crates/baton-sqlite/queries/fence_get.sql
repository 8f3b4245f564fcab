SELECT token FROM baton_fences WHERE resource = ?1
