package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import java.sql.SQLException;

/**
 * Runs statements that may block, such as a lock wait, under a watch of the {@link SessionCanceller}, with a read
 * timeout that covers the wait: the server counts waits in whole seconds, the watch ends them on time.
 */
final class WatchedStatements {

    /** A statement that may block, run under a {@link SessionCanceller.Watch}. */
    @FunctionalInterface
    interface Call {
        Outcome run(SessionCanceller.Watch watch) throws SQLException;
    }

    private final SessionCanceller canceller;

    WatchedStatements(SessionCanceller canceller) {
        this.canceller = canceller;
    }

    /**
     * Runs {@code call} under a watch, with a read timeout that covers {@code remainingNanos}. A statement that the
     * watch ended with {@code KILL QUERY} counts as {@link Outcome#DEADLINE} or {@link Outcome#INTERRUPTED}.
     */
    Outcome run(Session session, long deadlineNanos, long remainingNanos, Call call) throws SQLException {
        session.readTimeout(SessionSupport.waitReadTimeoutMillis(remainingNanos));
        SessionCanceller.Watch watch = canceller.watch(session, deadlineNanos);
        try {
            return call.run(watch);
        } catch (SQLException ex) {
            watch.close();
            SessionCanceller.Ending ending = watch.ending();
            if (ending != null && ex.getErrorCode() == ServerErrors.ER_QUERY_INTERRUPTED) {
                return Outcome.endedBy(ending);
            }
            throw ex;
        } finally {
            watch.close();
            session.readTimeout(SessionPool.STATEMENT_TIMEOUT.toMillis());
        }
    }
}
