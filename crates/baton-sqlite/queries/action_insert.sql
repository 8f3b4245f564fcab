-- Records an operator action at store time ?1.
INSERT INTO baton_actions (at, actor, action, target, detail)
VALUES (?1, ?2, ?3, ?4, ?5)
RETURNING id, at, actor, action, target, detail
