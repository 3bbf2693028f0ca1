package io.github.bizlock.internal.jdbc.dialect;

import org.jspecify.annotations.Nullable;

/** MariaDB 10.6 and later. */
public final class MariaDbDialect extends Dialect {

    MariaDbDialect(String table, ClusterTopology topology) {
        super(table, topology);
    }

    @Override
    public String product() {
        return "MariaDB";
    }

    /** MariaDB keeps the status variables in {@code information_schema}, with or without the performance schema. */
    @Override
    String serverStart() {
        return "(SELECT UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS UNSIGNED) FROM information_schema.GLOBAL_STATUS"
                + " WHERE VARIABLE_NAME = 'UPTIME')";
    }

    /**
     * {@code SET STATEMENT ... FOR} scopes the causality wait to the one statement, so the pool's connections keep
     * their settings. 3 = reads (1) and UPDATE/DELETE (2).
     */
    @Override
    String causalPrefix() {
        return "SET STATEMENT wsrep_sync_wait = 3 FOR ";
    }

    /** MariaDB takes the wait in the statement ({@code WAIT n}, since 10.3), so no session variable is set. */
    @Override
    String rowLockWaiting() {
        return "FOR UPDATE WAIT";
    }

    @Override
    String rowShareLocking() {
        return "LOCK IN SHARE MODE";
    }

    @Override
    boolean rowWaitInStatement() {
        return true;
    }

    @Override
    @Nullable
    String rowLockWaitTimeout() {
        return null;
    }

    /** A failed {@code NOWAIT} is a lock wait timeout on MariaDB. */
    @Override
    int rowNowaitErrorCode() {
        return ServerErrors.ER_LOCK_WAIT_TIMEOUT;
    }
}
