/*
 * The lease protocol, checked exhaustively by spin for small bounds.
 *
 * Time is a shared tick counter, the store's clock; it advances by itself, between any two
 * steps of any holder, so every pause of any length at any step is explored. The store judges
 * expiry on that clock in one atomic step per operation (as each backend's statement or script
 * does). Each holder keeps a local deadline, computed from the instant it SENT the request that
 * granted or renewed its term, plus its renew deadline, plus up to DRIFT ticks its own clock may
 * run slow over a term (bounded clock-rate error); it acts only before that deadline. A write
 * reaches the fenced resource after a pause of any length and is accepted only under a token at
 * least as high as the highest accepted before.
 *
 * Replies may be lost (an unknown outcome); the holder then reads the record back and, finding
 * itself there, confirms the candidate with a compare-and-set renewal whose send instant starts
 * the deadline. The store may lose its dataset (a Redis restart without persistence): tokens then
 * come from the clock term of max(last + 1, now * TOKENS_PER_TICK).
 *
 * Properties (assertions): no two holders act before their own deadlines at the same instant;
 * no fenced write below the highest accepted token is accepted; tokens only grow.
 *
 * Planted bugs, one per define, must each produce a counterexample:
 *   BUG_DEADLINE_FROM_RECEIPT  the deadline counted from the reply's arrival, not the send
 *   BUG_TRUST_READBACK         a read-back taken as a grant without the confirming renewal
 *   BUG_NO_FENCE               the resource accepts every write
 *   BUG_ACT_AFTER_RELEASE      a holder keeps acting after it sent its release
 *   BUG_COUNTER_ONLY           tokens from the counter alone, which the lost dataset resets
 */

#define HOLDERS 2
#define TTL 3
#define RENEW_DEADLINE 1
#define DRIFT 1
#define MAXT 5
#define TERMS 1
#define TOKENS_PER_TICK 8
#define NONE 255

/* The renew deadline plus the clock error must end before the store's TTL. */
#define ACTING(j) (deadline[j] > now)

byte now = 0;
/* The store's record and counter: lost when the store loses its dataset. */
byte owner = NONE;
byte token = 0;
byte expires = 0;
byte counter = 0;
/* Ghost: the highest token ever issued, which nothing loses. */
byte highest = 0;
/* The fenced resource: the highest token it accepted. */
byte fence = 0;
bool amnesia_done = false;

byte deadline[HOLDERS];
byte held[HOLDERS];

active proctype clock() {
    do
    :: now < MAXT -> now++
    :: now >= MAXT -> break
    od
}

/* The store loses everything once, at any instant (Redis restarted without persistence); the
 * restart takes at least a tick, fewer than TOKENS_PER_TICK tokens are issued in a tick. */
active proctype store_restart() {
    atomic {
        !amnesia_done && now > 0 && now < MAXT ->
        owner = NONE; token = 0; expires = 0; counter = 0; amnesia_done = true;
        now++
    }
}

inline grant(me, granted) {
#ifdef BUG_COUNTER_ONLY
    next = counter + 1;
#else
    next = counter + 1;
    if
    :: now * TOKENS_PER_TICK > next -> next = now * TOKENS_PER_TICK
    :: else -> skip
    fi;
#endif
    assert(next > highest);
    highest = next;
    counter = next;
    token = next;
    owner = me;
    expires = now + TTL;
    granted = next
}

/* A compare-and-set renewal on (holder, token), refused once expired on the store's clock. */
inline renew(me, candidate, ok) {
    atomic {
        ok = (owner == me && token == candidate && expires > now);
        if
        :: ok -> expires = now + TTL
        :: else -> skip
        fi
    }
}

inline start_term(me, sent, received, candidate) {
    select(drift : 0 .. DRIFT);
#ifdef BUG_DEADLINE_FROM_RECEIPT
    deadline[me] = received + RENEW_DEADLINE + drift;
#else
    deadline[me] = sent + RENEW_DEADLINE + drift;
#endif
    held[me] = candidate
}

/* Two holders act at once only once the store lost its dataset: then the fence alone keeps
 * the writes in order. */
inline act(me) {
    atomic {
        ACTING(me) ->
        for (j : 0 .. HOLDERS - 1) {
            assert(j == me || !ACTING(j) || amnesia_done)
        }
        mine = held[me]
    };
    /* the write travels to the resource: a pause of any length */
    atomic {
#ifdef BUG_NO_FENCE
        assert(mine >= fence);
        fence = mine
#else
        if
        :: mine >= fence -> fence = mine
        :: else -> skip
        fi
#endif
    }
}

/* Forgets the temporaries of a step, so that states differing only in them are one state. */
inline forget() {
    d_step { sent = 0; received = 0; granted = 0; candidate = 0; next = 0; drift = 0; mine = 0; j = 0; ok = false }
}

proctype holder(byte me) {
    byte terms = 0;
    byte sent, received, granted, candidate, next, drift, mine, j;
    bool ok;
    do
    :: now >= MAXT -> break
    :: now < MAXT ->
        if
        :: deadline[me] == 0 && terms < TERMS ->
            terms++;
            sent = now;
            /* the request travels: any pause */
            granted = 0;
            atomic {
                if
                :: owner == NONE || expires <= now -> grant(me, granted)
                :: else -> skip
                fi
            };
            /* the reply travels: any pause, or it is lost */
            received = now;
            if
            :: granted > 0 -> start_term(me, sent, received, granted)
            :: granted > 0 ->
                /* the reply was lost: read the record back */
                atomic { ok = (owner == me); candidate = token };
                if
                :: ok ->
#ifdef BUG_TRUST_READBACK
                    start_term(me, now, now, candidate)
#else
                    sent = now;
                    renew(me, candidate, ok);
                    if
                    :: ok -> start_term(me, sent, now, candidate)
                    :: else -> skip
                    fi
#endif
                :: else -> skip
                fi
            :: granted == 0 -> skip
            fi
        :: ACTING(me) -> act(me)
        :: ACTING(me) ->
            sent = now;
            renew(me, held[me], ok);
            if
            :: ok -> start_term(me, sent, now, held[me])
            :: else -> deadline[me] = 0
            fi
        :: ACTING(me) ->
            /* a graceful release: stop acting first, then free the record */
#ifndef BUG_ACT_AFTER_RELEASE
            deadline[me] = 0;
#endif
            atomic {
                if
                :: owner == me && token == held[me] -> owner = NONE; expires = now
                :: else -> skip
                fi
            }
        :: deadline[me] > 0 && !ACTING(me) -> deadline[me] = 0
        fi;
        forget()
    od
}

init {
    assert(RENEW_DEADLINE + DRIFT < TTL);
    atomic {
        byte i;
        for (i : 0 .. HOLDERS - 1) {
            run holder(i)
        }
    }
}
