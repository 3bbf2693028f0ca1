package io.github.bizlock.internal.jdbc;

import static io.github.bizlock.internal.jdbc.LockJdbc.micros;

import io.github.bizlock.internal.jdbc.dialect.HousekeepingSql;
import java.time.Duration;
import java.util.List;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Deletes rows of every lock table unused for longer than a retention, in batches, so that no token the deleted rows
 * held is ever issued again. Raising the token floor and deleting are writes of their own; removing ROW lock rows,
 * which reads then deletes, runs in a {@code REQUIRES_NEW} transaction.
 */
public final class HousekeepingDao {

    private final LockJdbc db;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate purges;
    private final HousekeepingSql sql;

    /** @param transactionManager for the transactions that read then delete ROW lock rows, on the lock DataSource */
    public HousekeepingDao(LockDatabase database, PlatformTransactionManager transactionManager) {
        this.db = database.jdbc();
        this.jdbc = db.jdbc();
        // Housekeeping's locking read must lock only the rows it deletes, never gaps that new locks insert into.
        this.purges = new TransactionTemplate(transactionManager);
        this.purges.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        this.purges.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        this.purges.setName("bizlock-housekeeping");
        this.sql = new HousekeepingSql(database.dialect());
    }

    /**
     * Deletes up to {@code batchSize} rows that have been free, or expired, for longer than {@code retention} and have
     * no read lease running, after raising the token floor above their tokens, so a lock created again later still gets
     * a higher token; and up to {@code batchSize} read leases that ended longer ago than that.
     *
     * @return the number of rows deleted
     */
    public int purgeLeaseTable(Duration retention, int batchSize) {
        long retentionMicros = micros(retention);
        int deleted = deleteUnderRaisedFloor(
                () -> jdbc.queryForObject(sql.purgeableMaxToken(), Long.class, retentionMicros, retentionMicros),
                floor -> db.update(sql.purge(), floor, retentionMicros, retentionMicros, batchSize));
        Boolean endedReaders =
                db.guarded(() -> jdbc.queryForObject(sql.endedReaders(), Boolean.class, retentionMicros));
        return Boolean.TRUE.equals(endedReaders)
                ? deleted + db.update(sql.purgeReaders(), retentionMicros, batchSize)
                : deleted;
    }

    /**
     * Deletes up to {@code batchSize} ROW/NAMED token rows unused for longer than {@code retention}, and up to
     * {@code batchSize} ROW lock rows created longer ago than that which nobody holds right now. Token rows go the way
     * lease rows do (the floor is raised above their tokens first); a held lock row is skipped, not waited for, and a
     * free one deleted is simply created again by its next acquirer.
     *
     * @return the number of rows deleted
     */
    public int purgeSessionTables(Duration retention, int batchSize) {
        long retentionMicros = micros(retention);
        int deleted = deleteUnderRaisedFloor(
                () -> jdbc.queryForObject(sql.purgeableMaxSessionToken(), Long.class, retentionMicros),
                floor -> db.update(sql.purgeSessionTokens(), floor, retentionMicros, batchSize));
        deleted += db.retrying(() -> purges.execute(status -> {
            List<Object[]> free = jdbc.query(
                    sql.purgeableLockRows(),
                    (rs, row) -> new Object[] {rs.getBytes(1), rs.getBytes(2)},
                    retentionMicros,
                    batchSize);
            if (!free.isEmpty()) {
                jdbc.batchUpdate(sql.deleteLockRow(), free);
            }
            return free.size();
        }));
        return deleted;
    }

    /**
     * The token-floor scheme of every purge: raise the floor to the highest token among the rows that may go, commit,
     * then delete only rows whose token the floor covers. Committed before the delete, so an insert that finds a row
     * gone always reads the raised floor, and a lock created again continues above every token it was given.
     *
     * @param purgeableMax the highest token among the rows that may be deleted (0 or null when there are none)
     * @param deleteUpTo deletes (in a write of its own) the rows whose token is at most the floor it is given; returns
     *     how many
     */
    private int deleteUnderRaisedFloor(Supplier<@Nullable Long> purgeableMax, LongFunction<Integer> deleteUpTo) {
        Long floor = db.guarded(purgeableMax);
        if (floor == null || floor == 0) {
            return 0;
        }
        db.update(sql.raiseTokenFloor(), floor);
        return deleteUpTo.apply(floor);
    }
}
