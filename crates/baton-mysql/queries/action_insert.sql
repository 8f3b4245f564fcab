-- Records an operator action at the given time; its id is LAST_INSERT_ID().
--   ? at (ms), actor, action, target, detail.
INSERT INTO baton_actions (at, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)
