package io.github.bizlock.service;

import io.github.bizlock.internal.jdbc.dialect.ServerErrors;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * What the lock database's refusals mean, as bizlock's dialect reads the server's error codes: for a step that talks to
 * the lock database beside the service (a migration of the lock tables, a first connection) and reports its failure.
 */
public final class DatabaseRefusals {

    private DatabaseRefusals() {}

    /**
     * Whether the server answered and refused the credentials: a mistake that waiting does not mend, unlike a server
     * that is down.
     */
    public static boolean credentialsRefused(Throwable failure) {
        return ServerErrors.credentialsRefused(failure);
    }

    /** The server's refusal of a statement for lack of rights on a database or table, or {@code null}. */
    public static @Nullable SQLException rightsRefused(Throwable failure) {
        return ServerErrors.rightsRefused(failure);
    }

    /**
     * Whether the server rolled the transaction back for a conflict (a deadlock, or a cluster node's certification
     * failure against another node's write): nothing was committed, and a new attempt may succeed.
     */
    public static boolean rolledBackForConflict(Throwable failure) {
        return ServerErrors.rolledBackForConflict(failure);
    }
}
