package io.github.bizlock.internal.jdbc;

import static io.github.bizlock.internal.jdbc.LockJdbc.bytes;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.ModeBindingStore;
import io.github.bizlock.internal.jdbc.dialect.ModeSql;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Binds lock names to modes in the mode table. A name's first use inserts its row, unless another process got there
 * first, and reads back the bound mode on the same connection, in autocommit: the read sees the row whichever process
 * committed it, never the snapshot of a transaction the caller has open.
 */
public final class ModeBindingDao implements ModeBindingStore {

    private final LockJdbc db;
    private final ModeSql sql;
    private final String table;

    public ModeBindingDao(LockDatabase database) {
        this.db = database.jdbc();
        this.sql = new ModeSql(database.dialect());
        this.table = database.table();
    }

    @Override
    public LockMode bind(String name, LockMode mode, long deadlineNanos) {
        byte[] key = bytes(name);
        List<String> bound = db.updateThenQuery(
                deadlineNanos,
                sql.bind(),
                new Object[] {key, bytes(mode.name())},
                sql.boundMode(),
                (rs, row) -> new String(rs.getBytes(1), StandardCharsets.UTF_8),
                key);
        if (bound.isEmpty()) {
            throw new IllegalStateException("The binding of lock name '" + name + "' to a mode is missing from " + table
                    + "_mode right after it was written; was the row deleted meanwhile?");
        }
        try {
            return LockMode.valueOf(bound.get(0));
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException(
                    table + "_mode binds lock name '" + name + "' to '" + bound.get(0) + "', which is not a lock mode;"
                            + " set its lock_mode to LEASE, ROW or NAMED",
                    ex);
        }
    }

    @Override
    public String changeStatements(String name, LockMode mode) {
        return sql.changeStatements(name, mode);
    }
}
