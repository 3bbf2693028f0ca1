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
}
