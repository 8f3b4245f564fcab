-- Records an operator action at the server's time: $1 actor, $2 action, $3 target, $4 detail.
INSERT INTO baton_actions (at, actor, action, target, detail)
VALUES (baton_now_ms(), $1, $2, $3, $4)
RETURNING id, at, actor, action, target, detail
