package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.Loss;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The watchdog's renewal of session-held locks: asks each grant's session whether it still holds its lock. */
final class SessionHeartbeat {

    private final SessionSteps steps;

    SessionHeartbeat(SessionSteps steps) {
        this.steps = steps;
    }

    /** The grants whose session ended, no longer holds the lock, or did not answer, and why. */
    Map<Grant, Loss> check(List<Grant> grants) {
        Map<Grant, Loss> gone = new HashMap<>();
        for (Grant grant : grants) {
            Session session = SessionGrant.sessionOf(grant);
            session.guard().lock();
            try {
                if (!session.heldBy(grant)) {
                    continue; // released (and perhaps lent to another lock) since the watchdog collected it
                }
                try {
                    // The unlocking thread may be waiting for this guard: it must not wait longer than a release.
                    session.readTimeout(LockEngine.RELEASE_TIMEOUT.toMillis());
                    if (!steps.stillHolds(session, grant)) {
                        gone.put(grant, SessionLosses.notHeld(session));
                    }
                    session.readTimeout(SessionPool.STATEMENT_TIMEOUT.toMillis());
                } catch (SQLException ex) {
                    if (SessionLosses.timedOut(ex)) {
                        session.markUnanswered();
                    }
                    gone.put(grant, SessionLosses.failed(session, ex));
                }
            } finally {
                session.guard().unlock();
            }
        }
        return gone;
    }
}
