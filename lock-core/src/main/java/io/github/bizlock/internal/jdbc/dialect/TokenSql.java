package io.github.bizlock.internal.jdbc.dialect;

/**
 * The statements on the ROW and NAMED modes' token table, and the take-over of the token floor, alike on MySQL 8 and
 * MariaDB, rendered when built. As for leases, {@code LAST_INSERT_ID(expr)} hands the highest token issued back as the
 * generated key.
 */
public final class TokenSql {

    /** The start of the epochs' clock: 2026-01-01T00:00:00Z in seconds since 1970, so that they fit below 2^31. */
    public static final long EPOCH_CLOCK_BASE = 1_767_225_600L;

    // As a LEASE row's, a counter rises by 2^32 per epoch it is behind the floor (TokenFloor); last_token is assigned
    // before token_epoch so that it reads the old one (named with its table: the floor has a token_epoch too). A
    // counter ahead of the floor (a floor restored by hand) keeps its epoch.
    private static final String ISSUE = """
            INSERT INTO ${table}_token
                   (biz_type, biz_id, lock_mode, last_token, token_epoch, token_server, modified_at)
            SELECT ?, ?, ?,
                   LAST_INSERT_ID(f.floor_token + ?),
                   f.token_epoch,
                   ${token_server},
                   UTC_TIMESTAMP(6)
              FROM ${table}_token_floor f
             WHERE f.id = 1
               AND f.token_server <=> ${token_server}
               AND f.token_boot <=> ${token_boot}
              LOCK IN SHARE MODE
                ON DUPLICATE KEY UPDATE
                   last_token   = LAST_INSERT_ID(last_token
                                                 + (GREATEST(${table}_token.token_epoch, f.token_epoch)
                                                    - ${table}_token.token_epoch) * 4294967296 + ?),
                   token_epoch  = GREATEST(${table}_token.token_epoch, f.token_epoch),
                   token_server = ${token_server},
                   modified_at  = UTC_TIMESTAMP(6)
            """;

    private static final String LAST_TOKEN = """
            SELECT last_token
              FROM ${table}_token
             WHERE biz_type = ?
               AND biz_id = ?
               AND lock_mode = ?
            """;

    // floor_token is assigned before token_epoch so that it reads the old epoch (MySQL assigns left to right; MariaDB's
    // SIMULTANEOUS_ASSIGNMENT reads old values in any order). UNIX_TIMESTAMP() is the statement's start, the same in
    // both places.
    private static final String TAKE_OVER = """
            UPDATE ${table}_token_floor
               SET floor_token  = floor_token + (${epoch} - token_epoch) * 4294967296,
                   token_epoch  = ${epoch},
                   token_server = ${token_server},
                   token_boot   = ${token_boot}
             WHERE id = 1
               AND NOT (token_server <=> ${token_server} AND token_boot <=> ${token_boot})
            """;

    /** The new epoch: the next, or the clock's second if later; unchanged for a floor nobody took yet. */
    private static final String EPOCH = "IF(token_server IS NULL, token_epoch, GREATEST(token_epoch + 1, "
            + "GREATEST(CAST(UNIX_TIMESTAMP() AS SIGNED) - " + EPOCH_CLOCK_BASE + ", 0)))";

    private final Statement issue;
    private final String lastToken;
    private final Statement takeOver;

    public TokenSql(Dialect dialect) {
        this.issue = dialect.statement(ISSUE);
        this.lastToken = dialect.render(LAST_TOKEN);
        this.takeOver = dialect.statement(Dialect.fill(TAKE_OVER, "epoch", EPOCH));
    }

    /**
     * Issues the next fencing tokens of a ROW or NAMED lock in a statement that commits on its own: {@code count}
     * above the last one, or above the token floor for a lock never taken; parameters type, id, mode, count, count.
     * The highest token issued is the generated key. Issues nothing while the floor is another reign's (even for a
     * counter that exists: the statement reads the floor first): {@code TokenFloor} takes it over, then it runs again.
     */
    public String issue() {
        return issue.sql();
    }

    /** The last fencing token issued for a ROW or NAMED lock; parameters type, id, mode. */
    public String lastToken() {
        return lastToken;
    }

    /**
     * Takes the token floor over for the reign the statement runs in if it is another's, with a new fencing epoch
     * ({@code TokenFloor}); changes nothing otherwise.
     */
    public String takeOver() {
        return takeOver.sql();
    }
}
