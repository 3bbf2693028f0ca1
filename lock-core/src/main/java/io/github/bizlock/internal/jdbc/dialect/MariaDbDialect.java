package io.github.bizlock.internal.jdbc.dialect;

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
    protected String serverStart() {
        return "(SELECT UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS UNSIGNED) FROM information_schema.GLOBAL_STATUS"
                + " WHERE VARIABLE_NAME = 'UPTIME')";
    }

    /**
     * {@code SET STATEMENT ... FOR} scopes the causality wait to the one statement, so the pool's connections keep
     * their settings. 3 = reads (1) and UPDATE/DELETE (2).
     */
    @Override
    public String renderCausal(String template) {
        String sql = render(template);
        return topology().galera() ? "SET STATEMENT wsrep_sync_wait = 3 FOR " + sql : sql;
    }
}
