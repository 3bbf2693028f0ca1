package io.github.bizlock.service;

import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.LockRow;
import java.time.LocalDateTime;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The LEASE lock table ({@code biz_lock}) of a {@link LockService}, for operators and tools: read its rows, and free a
 * lock whoever holds it. Every statement runs on bizlock's own lock connections in autocommit, never in the caller's
 * transaction, and within a bound of a few seconds however the database behaves. ROW and NAMED locks are held by
 * database sessions, not rows with an owner, and are not seen here.
 */
public final class BizLockDao {

    private final LockDaos daos;
    private final LeaseDao dao;

    BizLockDao(LockDaos daos) {
        this.daos = daos;
        this.dao = daos.leases();
    }

    /**
     * A row of the lease table as the database sees it; times are the database's, in UTC.
     *
     * @param name the lock's name
     * @param key the lock's key
     * @param owner the holder's instance id, or {@code null} when free
     * @param fencingToken the token of the latest acquisition
     * @param acquiredAt when it was last acquired
     * @param expiresAt when the lease ends (or ended)
     * @param held whether an owner holds it and its lease is running, by the database's clock
     */
    public record Row(
            String name,
            String key,
            @Nullable String owner,
            long fencingToken,
            LocalDateTime acquiredAt,
            LocalDateTime expiresAt,
            boolean held) {

        static Row of(LockRow row) {
            return new Row(
                    row.name(),
                    row.key(),
                    row.owner(),
                    row.fencingToken(),
                    row.acquiredAt(),
                    row.expiresAt(),
                    row.held());
        }
    }

    /** The lock table's name. */
    public String table() {
        return daos.table();
    }

    /** The lock's row, if it was ever taken and not purged since. */
    public Optional<Row> find(String name, String key) {
        return dao.find(new LockKey(name, key)).map(Row::of);
    }

    /** At most {@code limit} locks held now, by the database's clock, oldest first. */
    public List<Row> findHeld(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        return dao.findHeld(limit).stream().map(Row::of).toList();
    }

    /**
     * Frees a LEASE lock whoever holds it (an operator's force release). The former holder finds out at its next
     * renewal or unlock and reports the lock lost.
     *
     * @return whether an owner held the lock
     */
    public boolean forceRelease(String name, String key) {
        return dao.forceRelease(new LockKey(Objects.requireNonNull(name, "name"), Objects.requireNonNull(key, "key")));
    }

    /** The database's current time, in UTC: the clock every lease is measured by. */
    public LocalDateTime databaseTime() {
        return dao.databaseTime();
    }

    /** The server, as detected: product and version, e.g. {@code MariaDB 10.11}. */
    public String database() {
        return daos.dialect().product();
    }

    /** The lock tables the migrations create that are missing; empty when all are there. */
    public List<String> missingTables() {
        return daos.schema().missingTables();
    }

    @Override
    public String toString() {
        return "BizLockDao[" + daos.table() + "]";
    }
}
