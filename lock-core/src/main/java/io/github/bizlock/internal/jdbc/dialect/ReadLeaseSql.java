package io.github.bizlock.internal.jdbc.dialect;

import java.util.Collections;

/**
 * The statements of LEASE read locks, alike on MySQL 8 and MariaDB, rendered when built. Each instance holds one read
 * lease per key in {@code <table>_reader}, shared by its reading threads. Every statement that changes a reader row
 * runs in a transaction that first locks the key's {@code <table>} row ({@link #lockKeyForRead()}, {@link #lockKeys}), which writers take with
 * an {@code UPDATE} of their own: InnoDB (and certification on a multi-writer cluster) orders readers against
 * writers on that one row, and two reader transactions never lock rows in opposite orders. The lock row's
 * {@code read_until} is at least the end of every live reader lease, and a writer takes the row only after it
 * ({@link LeaseSql#acquireExisting()}).
 */
public final class ReadLeaseSql {

    // A read lease may begin while no writer holds the row, or while this owner does (a downgrade: the thread asking
    // holds the write lock), and no writer waits for the readers to leave (write_intent_until), again unless it is a
    // downgrade. The token is the last writer's.
    private static final String LOCK_KEY_FOR_READ = """
            SELECT fencing_token,
                   (owner_id IS NULL OR expire_at <= UTC_TIMESTAMP(6) OR (? AND owner_id = ?))
                   AND (write_intent_until IS NULL OR write_intent_until <= UTC_TIMESTAMP(6) OR ?) AS may_read
              FROM ${table}
             WHERE biz_type = ?
               AND biz_id = ?
               FOR UPDATE
            """;

    // A free row for readers of a key never locked before, at the token floor like a writer's first row; the floor is
    // read with a shared lock so housekeeping cannot raise it between this read and the insert.
    private static final String CREATE_KEY = """
            INSERT IGNORE INTO ${table}
                   (biz_type, biz_id, owner_id, fencing_token, token_epoch, token_server,
                    expire_at, created_at, acquired_at, modified_at)
            SELECT ?, ?, NULL, f.floor_token, f.token_epoch, f.token_server,
                   UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), UTC_TIMESTAMP(6)
              FROM ${table}_token_floor f
             WHERE f.id = 1
              LOCK IN SHARE MODE
            """;

    private static final String LOCK_KEYS = """
            SELECT biz_type
              FROM ${table}
             WHERE\s""";

    private static final String BEGIN_READ = """
            INSERT INTO ${table}_reader (biz_type, biz_id, owner_id, grant_id, expire_at, created_at)
            VALUES (?, ?, ?, ?, UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND, UTC_TIMESTAMP(6))
                ON DUPLICATE KEY UPDATE
                   grant_id   = VALUES(grant_id),
                   expire_at  = VALUES(expire_at),
                   created_at = VALUES(created_at)
            """;

    // Run after the reader rows changed, in the same transaction: a later UTC_TIMESTAMP(6), so read_until is never
    // below the reader leases just written.
    private static final String EXTEND_READ_UNTIL = """
            UPDATE ${table}
               SET read_until  = GREATEST(COALESCE(read_until, UTC_TIMESTAMP(6)),
                                          UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND),
                   modified_at = UTC_TIMESTAMP(6)
             WHERE\s""";

    private static final String RENEW = """
            UPDATE ${table}_reader
               SET expire_at = UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND
             WHERE owner_id = ?
               AND expire_at > UTC_TIMESTAMP(6)
               AND\s""";

    private static final String STILL_HELD = """
            SELECT biz_type, biz_id, grant_id
              FROM ${table}_reader
             WHERE owner_id = ?
               AND expire_at > UTC_TIMESTAMP(6)
               AND\s""";

    private static final String END_READ = """
            DELETE FROM ${table}_reader
             WHERE biz_type = ?
               AND biz_id = ?
               AND owner_id = ?
               AND grant_id = ?
               ${live}""";

    // The other instances' reader leases, live or not: a crashed instance's lease counts until it ends.
    private static final String RECOUNT_READ_UNTIL = """
            UPDATE ${table}
               SET read_until  = (SELECT MAX(r.expire_at)
                                    FROM ${table}_reader r
                                   WHERE r.biz_type = ?
                                     AND r.biz_id = ?),
                   modified_at = UTC_TIMESTAMP(6)
             WHERE biz_type = ?
               AND biz_id = ?
            """;

    private static final String KEY = "(biz_type = ? AND biz_id = ?)";
    private static final String GRANT = "(biz_type = ? AND biz_id = ? AND grant_id = ?)";

    private final String lockKeyForRead;
    private final String createKey;
    private final String lockKeys;
    private final String beginRead;
    private final String extendReadUntil;
    private final String renew;
    private final String stillHeld;
    private final String endRead;
    private final String endExpiredRead;
    private final String recountReadUntil;

    public ReadLeaseSql(Dialect dialect) {
        this.lockKeyForRead = dialect.render(LOCK_KEY_FOR_READ);
        this.createKey = dialect.render(CREATE_KEY);
        this.lockKeys = dialect.render(LOCK_KEYS);
        this.beginRead = dialect.render(BEGIN_READ);
        this.extendReadUntil = dialect.render(EXTEND_READ_UNTIL);
        this.renew = dialect.render(RENEW);
        this.stillHeld = dialect.render(STILL_HELD);
        this.endRead = dialect.render(Dialect.fill(END_READ, "live", "AND expire_at > UTC_TIMESTAMP(6)"));
        this.endExpiredRead = dialect.render(Dialect.fill(END_READ, "live", ""));
        this.recountReadUntil = dialect.render(RECOUNT_READ_UNTIL);
    }

    /**
     * Locks the key's row and selects its token and whether a read lease may begin; no row when the key has none yet.
     * Parameters downgrade (boolean), owner, downgrade, type, id.
     */
    public String lockKeyForRead() {
        return lockKeyForRead;
    }

    /** Creates the key's row, free, if it is missing; parameters type, id. */
    public String createKey() {
        return createKey;
    }

    /** Locks the rows of {@code count} keys, in key order; parameters type, id each. */
    public String lockKeys(int count) {
        return lockKeys + keys(count, KEY) + " ORDER BY biz_type, biz_id FOR UPDATE";
    }

    /** Begins this owner's read lease of a key; parameters type, id, owner, grant id, lease (µs). */
    public String beginRead() {
        return beginRead;
    }

    /** Raises {@code read_until} of {@code count} keys to the end of a lease begun now; parameters lease, then type, id each. */
    public String extendReadUntil(int count) {
        return extendReadUntil + keys(count, KEY);
    }

    /** Extends this owner's live read leases; parameters lease (µs), owner, then type, id, grant id each. */
    public String renew(int count) {
        return renew + keys(count, GRANT);
    }

    /** Which of this owner's read leases are live; parameters owner, then type, id, grant id each. */
    public String stillHeld(int count) {
        return stillHeld + keys(count, GRANT);
    }

    /** Ends this owner's read lease if it is live; parameters type, id, owner, grant id. */
    public String endRead() {
        return endRead;
    }

    /** Removes this owner's read lease that ended; parameters type, id, owner, grant id. */
    public String endExpiredRead() {
        return endExpiredRead;
    }

    /** Sets the key's {@code read_until} to the end of its last reader lease; parameters type, id, type, id. */
    public String recountReadUntil() {
        return recountReadUntil;
    }

    private static String keys(int count, String key) {
        return "(" + String.join(" OR ", Collections.nCopies(count, key)) + ")";
    }
}
