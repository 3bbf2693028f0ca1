package io.github.bizlock.internal.jdbc.dialect;

/** MariaDB 10.6 and later. */
public final class MariaDbDialect extends Dialect {

    MariaDbDialect(String table) {
        super(table);
    }

    @Override
    public String product() {
        return "MariaDB";
    }
}
