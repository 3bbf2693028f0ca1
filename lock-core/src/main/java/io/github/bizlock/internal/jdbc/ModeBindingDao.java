package io.github.bizlock.internal.jdbc;

import static io.github.bizlock.internal.jdbc.LockJdbc.bytes;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.ModeBindingStore;
import io.github.bizlock.internal.jdbc.dialect.ModeSql;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Binds lock names to modes, and semaphore names to their permits, in the mode table. A name's first use inserts its row, unless another process got there
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
    public Binding bind(String name, Binding wanted, long deadlineNanos) {
        byte[] key = bytes(name);
        List<Binding> bound = db.updateThenQuery(
                deadlineNanos,
                sql.bind(),
                new Object[] {key, bytes(wanted.mode().name()), wanted.permits()},
                sql.boundMode(),
                (rs, row) -> new Binding(mode(name, new String(rs.getBytes(1), StandardCharsets.UTF_8)), rs.getInt(2)),
                key);
        if (bound.isEmpty()) {
            throw new IllegalStateException("The binding of lock name '" + name + "' to a mode is missing from " + table
                    + "_mode right after it was written; was the row deleted meanwhile?");
        }
        return bound.get(0);
    }

    private LockMode mode(String name, String bound) {
        try {
            return LockMode.valueOf(bound);
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException(
                    table + "_mode binds lock name '" + name + "' to '" + bound + "', which is not a lock mode;"
                            + " set its lock_mode to LEASE, ROW or NAMED",
                    ex);
        }
    }

    @Override
    public String changeStatements(String name, Binding wanted) {
        return sql.changeStatements(name, wanted.mode(), wanted.permits());
    }
}
