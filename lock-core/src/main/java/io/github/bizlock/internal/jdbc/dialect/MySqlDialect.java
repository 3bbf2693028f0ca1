package io.github.bizlock.internal.jdbc.dialect;

/** MySQL 8.0 and later (and Percona XtraDB Cluster, a MySQL with Galera). */
public final class MySqlDialect extends Dialect {

    MySqlDialect(String table, ClusterTopology topology) {
        super(table, topology);
    }

    @Override
    public String product() {
        return "MySQL";
    }

    /**
     * MySQL 8 keeps the status variables in {@code performance_schema} only: readable by every account, and filled with
     * the performance schema off too (8.0.31). Should a server leave it empty, the start reads 0 rather than NULL.
     */
    @Override
    String serverStart() {
        return "COALESCE((SELECT UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS UNSIGNED)"
                + " FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Uptime'), 0)";
    }

    /** MySQL has no {@code SET STATEMENT}: a causal UPDATE runs as it is. */
    @Override
    String causalPrefix() {
        return "";
    }

    /** The wait is the session's {@code innodb_lock_wait_timeout}, set by {@link #rowLockWaitTimeout()}. */
    @Override
    String rowLockWaiting() {
        return "FOR UPDATE";
    }

    @Override
    String rowShareLocking() {
        return "FOR SHARE";
    }

    @Override
    boolean rowWaitInStatement() {
        return false;
    }

    @Override
    String rowLockWaitTimeout() {
        return "SET SESSION innodb_lock_wait_timeout = ?";
    }

    /** ER_LOCK_NOWAIT, which Spring does not translate. */
    @Override
    int rowNowaitErrorCode() {
        return ServerErrors.ER_LOCK_NOWAIT;
    }
}
