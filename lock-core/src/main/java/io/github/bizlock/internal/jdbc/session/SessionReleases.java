package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockEngine;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.jdbc.InterruptStatus;
import java.sql.SQLException;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.QueryTimeoutException;

/**
 * Releases locks held on sessions: a session that answered its release goes back to the pool, any other is closed,
 * and the server frees whatever it held with it.
 */
final class SessionReleases {

    private final SessionPool sessions;
    private final SessionSteps steps;

    SessionReleases(SessionPool sessions, SessionSteps steps) {
        this.sessions = sessions;
        this.steps = steps;
    }

    /**
     * Releases the lock on its session, waiting for the server at most {@link LockEngine#RELEASE_TIMEOUT}.
     *
     * @throws QueryTimeoutException if the server did not answer in time; the session is closed, and the server frees
     *     the lock when it drops the session
     */
    @Nullable
    Loss release(Grant grant) {
        return InterruptStatus.cleared(() -> releaseOnSession(grant));
    }

    /** The release, run with the thread's interrupt status cleared ({@link InterruptStatus#cleared}). */
    private @Nullable Loss releaseOnSession(Grant grant) {
        Session session = SessionGrant.sessionOf(grant);
        session.guard().lock();
        try {
            if (!session.heldBy(grant)) {
                // Released before (the session may hold another lock by now): nothing of this grant's to give back.
                return SessionLosses.releasedBefore(session);
            }
            session.markDone();
            if (session.unanswered()) {
                // A heartbeat that ran while this unlock waited got no answer: the connection is closed, and the
                // release cannot be sent. Not lost while held as far as anyone knows, just not released.
                sessions.discard(session);
                throw notAnswered(grant, session, null);
            }
            try {
                session.readTimeout(LockEngine.RELEASE_TIMEOUT.toMillis());
                if (steps.unlock(session, grant)) {
                    session.readTimeout(SessionPool.STATEMENT_TIMEOUT.toMillis());
                    sessions.giveBack(session);
                    return null;
                }
                sessions.discard(session);
                return SessionLosses.notHeld(session);
            } catch (SQLException ex) {
                sessions.discard(session);
                if (SessionLosses.timedOut(ex)) {
                    // Held at the last heartbeat and cut off since: not lost while held, just not released yet.
                    throw notAnswered(grant, session, ex);
                }
                return SessionLosses.failed(session, ex);
            }
        } finally {
            session.guard().unlock();
        }
    }

    private static QueryTimeoutException notAnswered(Grant grant, Session session, @Nullable SQLException cause) {
        return new QueryTimeoutException(
                "Releasing lock " + grant.key() + ": its database session (connection id " + session.connectionId()
                        + ") did not answer within " + LockEngine.RELEASE_TIMEOUT.toMillis() + " ms; its connection is"
                        + " closed, and the server frees the lock when it drops the session",
                cause);
    }

    /**
     * Closes the grants' sessions, at shutdown: the server frees their locks with them, and closing waits for no
     * answer.
     */
    void releaseAll(List<Grant> grants) {
        for (Grant grant : grants) {
            Session session = SessionGrant.sessionOf(grant);
            session.guard().lock();
            try {
                if (session.heldBy(grant)) {
                    session.markDone();
                    sessions.discard(session);
                }
            } finally {
                session.guard().unlock();
            }
        }
    }
}
