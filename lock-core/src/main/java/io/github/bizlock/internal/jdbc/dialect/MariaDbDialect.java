package io.github.bizlock.internal.jdbc.dialect;

import org.jspecify.annotations.Nullable;

/** MariaDB 10.6 and later. */
public final class MariaDbDialect extends Dialect {

    public MariaDbDialect(String table) {
        super(table);
    }

    @Override
    public String product() {
        return "MariaDB";
    }

    /** A failed {@code NOWAIT} is a lock wait timeout on MariaDB. */
    @Override
    public int nowaitErrorCode() {
        return 1205;
    }

    /** MariaDB takes the wait in the statement ({@code WAIT n}, since 10.3), so no session variable is set. */
    @Override
    public String lockRow(long seconds) {
        return selectRow("FOR UPDATE WAIT " + seconds);
    }

    @Override
    public @Nullable String rowLockWaitTimeout() {
        return null;
    }
}
