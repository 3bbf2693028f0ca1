package io.github.bizlock.internal.jdbc.session;

import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.Loss;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;

/** Why a session-held lock was lost, told from what its session answered: ended, or cut off from this process. */
final class SessionLosses {

    private SessionLosses() {}

    /** A connection that answers but no longer holds the lock: its session ended, and it reconnected as a new one. */
    static Loss notHeld(Session session) {
        return new Loss(
                LossCause.SESSION_ENDED,
                "its database session (connection id " + session.connectionId() + ") no longer holds it: the"
                        + " session ended (a connection that reconnects is a new session, without the old one's"
                        + " locks)");
    }

    /** A second release of a grant: its session released the lock before, and may hold another one now. */
    static Loss releasedBefore(Session session) {
        return new Loss(
                LossCause.UNKNOWN,
                "it was released before, through its database session (connection id " + session.connectionId() + ")");
    }

    /**
     * A statement on the session failed: a session that timed out may still be alive on the server, cut off from
     * this process; any other failure means the session ended (killed, closed, server restarted).
     */
    static Loss failed(Session session, SQLException ex) {
        String connection = "its database session (connection id " + session.connectionId() + ")";
        String error = ex.toString().lines().findFirst().orElse("").strip(); // drivers add lines of advice
        if (timedOut(ex)) {
            return new Loss(
                    LossCause.UNREACHABLE,
                    connection + " did not answer in time (" + error + "); the server frees the lock when it drops"
                            + " the session");
        }
        return new Loss(LossCause.SESSION_ENDED, connection + " ended (" + error + "); the server freed the lock");
    }

    /** Whether the failure is a read that timed out: the server may still be there, cut off from this process. */
    static boolean timedOut(Throwable ex) {
        for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLTimeoutException || cause instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }
}
