package io.github.bizlock.internal.jdbc.dialect;

/** MySQL 8.0 and later. */
public final class MySqlDialect extends Dialect {

    MySqlDialect(String table) {
        super(table);
    }

    @Override
    public String product() {
        return "MySQL";
    }
}
