package io.github.bizlock.internal.jdbc.dialect;

import java.util.Collections;

/**
 * The LEASE table's statements, alike on MySQL 8 and MariaDB, rendered when built.
 *
 * <p>Times are the database's: {@code UTC_TIMESTAMP(6)}, never a client clock and never {@code NOW()}, which follows the
 * session time zone. Lease lengths are bound in microseconds. {@code LAST_INSERT_ID(expr)} hands the new fencing
 * token back in the statement's OK packet, read through {@code getGeneratedKeys()}, so acquiring costs one round
 * trip and its outcome cannot be misread from an affected-rows count.
 *
 * <p>Every statement that issues a token issues only while the token floor names this server's reign, and a row's token
 * rises by {@code 2^32} per fencing epoch the row is behind the floor: a server promoted after a failover, or promoted
 * again, may lack the last writes of the reigns before, and its tokens must still be above every token issued there
 * ({@code TokenFloor} states the rule and why it holds).
 *
 * <p>On a multi-writer cluster the acquiring statements need nothing more: a node that has not yet applied another
 * node's write can only decide on an old row, and certification rolls such a write back (error 1213, or a silent retry
 * with {@code wsrep_retry_autocommit}). Statements that decide from the row whether this owner still holds the lock
 * are causal: renew and release are rendered so ({@link Dialect#causal}), and the DAO runs the reads with
 * {@link Dialect#causalReadsOn()}, so none acts on a row the lock has already left.
 */
public final class LeaseSql {

    // The token rises by 2^32 per epoch the row is behind the floor (TokenFloor), and is assigned before token_epoch so
    // that it reads the old one (MariaDB's SIMULTANEOUS_ASSIGNMENT reads the old one in any order). A row ahead of the
    // floor (a floor restored by hand) keeps its epoch. The floor row is read without a lock: its epoch changes only
    // at a take-over, before this reign's first token.
    private static final String ACQUIRE_EXISTING = """
            UPDATE ${table}
               SET owner_id      = ?,
                   fencing_token = LAST_INSERT_ID(fencing_token
                                                  + (GREATEST(token_epoch, ${floor_epoch}) - token_epoch) * 4294967296
                                                  + ?),
                   token_epoch   = GREATEST(token_epoch, ${floor_epoch}),
                   token_server  = ${token_server},
                   acquired_at   = UTC_TIMESTAMP(6),
                   modified_at   = UTC_TIMESTAMP(6),
                   expire_at     = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
             WHERE biz_type = ?
               AND biz_id = ?
               AND EXISTS (SELECT 1
                             FROM ${table}_token_floor f
                            WHERE f.id = 1
                              AND f.token_server <=> ${token_server}
                              AND f.token_boot <=> ${token_boot})
               AND (${free})
               AND (read_until IS NULL OR read_until <= UTC_TIMESTAMP(6))
            """;

    // A writer that waits for readers keeps new readers out while its intent lasts (ReadLeaseSql reads it). Set only
    // where readers are what keeps it waiting, so a wait for another writer writes nothing.
    private static final String MARK_WRITE_INTENT = """
            UPDATE ${table}
               SET write_intent_until = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
             WHERE biz_type = ?
               AND biz_id = ?
               AND read_until > UTC_TIMESTAMP(6)
            """;

    private static final String CLEAR_WRITE_INTENT = """
            UPDATE ${table}
               SET write_intent_until = NULL
             WHERE biz_type = ?
               AND biz_id = ?
               AND write_intent_until IS NOT NULL
            """;

    private static final String FLOOR_EPOCH = "(SELECT f.token_epoch FROM ${table}_token_floor f WHERE f.id = 1)";

    private static final String ACQUIRE_NEW = """
            INSERT INTO ${table}
                   (biz_type, biz_id, owner_id, fencing_token, token_epoch, token_server,
                    expire_at, created_at, acquired_at, modified_at)
            SELECT ?, ?, ?,
                   LAST_INSERT_ID(f.floor_token + ?),
                   f.token_epoch,
                   ${token_server},
                   UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND,
                   UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)
              FROM ${table}_token_floor f
             WHERE f.id = 1
               AND f.token_server <=> ${token_server}
               AND f.token_boot <=> ${token_boot}
              LOCK IN SHARE MODE
            """;

    private static final String FREE_LOCK = """
            UPDATE ${table}
               SET owner_id    = NULL,
                   modified_at = UTC_TIMESTAMP(6),
                   expire_at   = UTC_TIMESTAMP(6)
             WHERE biz_type = ?
               AND biz_id = ?
               AND ${holder}
            """;

    // The batch statements end in the list of locks, "(biz_type = ? AND biz_id = ? AND fencing_token = ?) OR ...",
    // which is as long as the batch: appended at each use (keys(count)).
    private static final String RELEASE_ALL = """
            UPDATE ${table}
               SET owner_id    = NULL,
                   modified_at = UTC_TIMESTAMP(6),
                   expire_at   = UTC_TIMESTAMP(6)
             WHERE owner_id = ?
               AND\s""";

    private static final String RENEW = """
            UPDATE ${table}
               SET modified_at = UTC_TIMESTAMP(6),
                   expire_at   = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
             WHERE owner_id = ?
               AND\s""";

    private static final String STILL_HELD = """
            SELECT biz_type, biz_id, fencing_token
              FROM ${table}
             WHERE owner_id = ?
               AND\s""";

    private static final String FIND = """
            SELECT biz_type, biz_id, owner_id, fencing_token, acquired_at, expire_at,
                   owner_id IS NOT NULL AND expire_at > UTC_TIMESTAMP(6) AS held
              FROM ${table}
             WHERE biz_type = ?
               AND biz_id = ?
            """;

    private static final String FIND_HELD = """
            SELECT biz_type, biz_id, owner_id, fencing_token, acquired_at, expire_at, TRUE AS held
              FROM ${table}
             WHERE owner_id IS NOT NULL
               AND expire_at > UTC_TIMESTAMP(6)
             ORDER BY acquired_at
             LIMIT ?
            """;

    private static final String KEY = "(biz_type = ? AND biz_id = ? AND fencing_token = ?)";

    private final Statement acquireExisting;
    private final Statement acquireExistingOrOwn;
    private final Statement takeOver;
    private final Statement acquireNew;
    private final Statement release;
    private final Statement releaseStale;
    private final Statement forceRelease;
    private final String releaseAll;
    private final Statement renew;
    private final String stillHeld;
    private final String find;
    private final String findHeld;
    private final String markWriteIntent;
    private final String clearWriteIntent;

    public LeaseSql(Dialect dialect) {
        String acquireExisting = Dialect.fill(ACQUIRE_EXISTING, "floor_epoch", FLOOR_EPOCH);
        this.acquireExisting = dialect.statement(
                Dialect.fill(acquireExisting, "free", "owner_id IS NULL OR expire_at <= UTC_TIMESTAMP(6)"));
        this.acquireExistingOrOwn = dialect.statement(Dialect.fill(
                acquireExisting, "free", "owner_id IS NULL OR expire_at <= UTC_TIMESTAMP(6) OR owner_id = ?"));
        // A waiter queued behind another process's wake lock takes the row without it only where the wake lock cannot
        // be trusted to come: a lease that ended (its holder stopped or lost its way to the server), or a row free for
        // a
        // while (its releaser's wake lock is held by a session that no longer answers). A row freed just now is the
        // next waiter's, whom the release woke.
        this.takeOver = dialect.statement(Dialect.fill(
                acquireExisting,
                "free",
                "owner_id IS NOT NULL AND expire_at <= UTC_TIMESTAMP(6)"
                        + " OR expire_at <= UTC_TIMESTAMP(6) - INTERVAL ? MICROSECOND"));
        this.acquireNew = dialect.statement(ACQUIRE_NEW);
        this.release = dialect.causal(Dialect.fill(FREE_LOCK, "holder", "owner_id = ? AND fencing_token = ?"));
        this.releaseStale = dialect.causal(Dialect.fill(FREE_LOCK, "holder", "owner_id = ?"));
        this.forceRelease = dialect.causal(Dialect.fill(FREE_LOCK, "holder", "owner_id IS NOT NULL"));
        this.releaseAll = dialect.render(RELEASE_ALL);
        this.renew = dialect.causal(RENEW);
        this.stillHeld = dialect.render(STILL_HELD);
        this.find = dialect.render(FIND);
        this.findHeld = dialect.render(FIND_HELD);
        this.markWriteIntent = dialect.render(MARK_WRITE_INTENT);
        this.clearWriteIntent = dialect.render(CLEAR_WRITE_INTENT);
    }

    /**
     * Marks that a writer waits for the lock's readers: new readers wait until the intent ends, unless the writer
     * marks it again first. Changes nothing where no reader lease runs. Parameters intent (µs), type, id.
     */
    public String markWriteIntent() {
        return markWriteIntent;
    }

    /** Ends a writer's intent once it holds the lock; parameters type, id. */
    public String clearWriteIntent() {
        return clearWriteIntent;
    }

    /**
     * Takes over the lock's row if it is free or its lease has ended, raising its token by the number of tokens
     * reserved; sets the new token as the generated key. A lock read locks hold ({@code read_until}) is not free. Changes nothing while the floor is another reign's:
     * {@code TokenFloor} takes it over, then the acquisition runs again. Parameters owner, tokens, lease (µs), type, id.
     */
    public String acquireExisting() {
        return acquireExisting.sql();
    }

    /**
     * {@link #acquireExisting()}, also taking the row over from this same owner, with a new token; parameters as
     * there, then the owner again. Only for an attempt after one whose connection failed under it: that attempt may
     * have committed with no answer, and its row, naming this owner, would otherwise stay taken for a whole lease
     * with nobody holding it. The caller holds no grant of the lock then (one thread per process acquires a key, and
     * only while the process holds none), and a late release of an earlier grant names an older token, so it cannot
     * free the new one.
     */
    public String acquireExistingOrOwn() {
        return acquireExistingOrOwn.sql();
    }

    /**
     * {@link #acquireExisting()} for a waiter queued behind another process's wake lock: takes the row only if its
     * lease ended, or if it has been free for longer than a given time; parameters as there, then that time (µs).
     */
    public String takeOver() {
        return takeOver.sql();
    }

    /**
     * Creates the lock's row, held, with a token above every purged one (by the number of tokens reserved). The
     * floor row is read with a shared lock so that housekeeping cannot raise it between this read and the insert.
     * Inserts nothing, and sets no generated key, while the floor is another reign's: {@code TokenFloor} takes it
     * over first. Parameters type, id, owner, tokens, lease (µs).
     */
    public String acquireNew() {
        return acquireNew.sql();
    }

    /**
     * Frees the lock if this owner and token still hold it; the row stays for reuse and keeps its token. Parameters
     * type, id, owner, token.
     */
    public String release() {
        return release.sql();
    }

    /**
     * Frees the lock if this owner holds it, whatever the token: for a row an acquisition committed after it had failed
     * without an answer, which no grant of this owner knows. Parameters type, id, owner.
     */
    public String releaseStale() {
        return releaseStale.sql();
    }

    /**
     * Frees a lock whoever holds it, for an operator's force release; parameters type, id. The row keeps its token, so
     * the next holder gets a higher one, and the former holder's watchdog or unlock finds the lock gone.
     */
    public String forceRelease() {
        return forceRelease.sql();
    }

    /** Frees those of {@code count} locks that one owner still holds: parameters owner, then type, id, token each. */
    public String releaseAll(int count) {
        return releaseAll + keys(count);
    }

    /** Extends the leases of {@code count} locks of one owner: parameters lease, owner, then type, id, token each. */
    public String renew(int count) {
        return renew.sql() + keys(count);
    }

    /** Which of {@code count} locks one owner still holds: parameters owner, then type, id, token each. */
    public String stillHeld(int count) {
        return stillHeld + keys(count);
    }

    private static String keys(int count) {
        return "(" + String.join(" OR ", Collections.nCopies(count, KEY)) + ")";
    }

    /** One lock's row with the database's view of whether its lease is running; parameters type, id. */
    public String find() {
        return find;
    }

    /** Locks whose lease is running, oldest first; parameter: the row limit. */
    public String findHeld() {
        return findHeld;
    }

    /** The database's clock, which every lease is measured by. */
    public String currentTime() {
        return "SELECT UTC_TIMESTAMP(6)";
    }
}
