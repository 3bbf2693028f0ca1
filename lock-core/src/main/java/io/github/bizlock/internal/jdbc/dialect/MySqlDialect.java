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
     * MySQL 8 keeps the status variables in {@code performance_schema} only; with the performance schema off the table
     * is empty and the start reads 0, so a restart goes unnoticed there (README, "Running on a cluster").
     */
    @Override
    protected String serverStart() {
        return "COALESCE((SELECT UNIX_TIMESTAMP() - CAST(VARIABLE_VALUE AS UNSIGNED)"
                + " FROM performance_schema.global_status WHERE VARIABLE_NAME = 'Uptime'), 0)";
    }
}
