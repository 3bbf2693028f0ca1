package io.github.bizlock.internal.jdbc.dialect;

/** MySQL 8.0 and later. */
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
    protected String serverStart() {
        return "COALESCE((SELECT UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS UNSIGNED)"
                + " FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Uptime'), 0)";
    }
}
