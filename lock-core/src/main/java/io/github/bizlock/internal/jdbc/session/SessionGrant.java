package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import java.time.Duration;

/**
 * A ROW or NAMED grant: the lock lasts while {@code session} holds it. It carries no fencing tokens: a token costs a
 * statement of its own here, so the engine issues them when a holder asks, and holders that never ask never pay for one.
 *
 * @param sentNanos when the session last answered: the heartbeat lease is counted from here
 */
record SessionGrant(LockKey key, String owner, Duration lease, long sentNanos, Session session) implements Grant {

    /** The session that holds a grant made by a session engine. */
    static Session sessionOf(Grant grant) {
        if (!(grant instanceof SessionGrant sessionGrant)) {
            throw new IllegalArgumentException("Grant " + grant + " was not made by a session engine");
        }
        return sessionGrant.session();
    }
}
