package io.github.bizlock.internal.jdbc;

import io.github.bizlock.internal.jdbc.dialect.Dialect;

/**
 * The statements on the ROW and NAMED modes' token table, alike on MySQL 8 and MariaDB. As for leases,
 * {@code LAST_INSERT_ID(expr)} hands the highest token issued back as the generated key.
 */
final class TokenSql {

    private final Dialect dialect;

    TokenSql(Dialect dialect) {
        this.dialect = dialect;
    }

    /**
     * Issues the next fencing tokens of a ROW or NAMED lock in a statement that commits on its own: {@code count}
     * above the last one, or above the token floor for a lock never taken; parameters type, id, mode, count, count.
     * The highest token issued is the generated key. Issues nothing while the floor is another reign's (even for a
     * counter that exists: the statement reads the floor first): {@link TokenFloor} takes it over, then it runs again.
     */
    String issueToken() {
        // As a LEASE row's, a counter rises by 2^32 per epoch it is behind the floor (TokenFloor); last_token is
        // assigned before token_epoch so that it reads the old one (named with its table: the floor has a token_epoch
        // too). A counter ahead of the floor (a floor restored by hand) keeps its epoch.
        return dialect.render("""
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
                """);
    }

    /** The last fencing token issued for a ROW or NAMED lock; parameters type, id, mode. */
    String lastToken() {
        return dialect.render("""
                SELECT last_token
                  FROM ${table}_token
                 WHERE biz_type = ?
                   AND biz_id = ?
                   AND lock_mode = ?
                """);
    }
}
