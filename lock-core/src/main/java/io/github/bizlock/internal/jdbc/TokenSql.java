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
     * The highest token issued is the generated key. Issues nothing while the floor is another server's (even for a
     * counter that exists: the statement reads the floor first): {@link TokenFloor} takes it over, then it runs again.
     */
    String issueToken() {
        // As a LEASE row's, a counter last raised by another server jumps by 2^32 (TokenFloor); last_token is assigned
        // before token_server so that it reads the old one (named with its table: the floor has a token_server too).
        return dialect.render("""
                INSERT INTO ${table}_token (biz_type, biz_id, lock_mode, last_token, token_server, modified_at)
                SELECT ?, ?, ?,
                       LAST_INSERT_ID(f.floor_token + ?),
                       ${token_server},
                       UTC_TIMESTAMP(6)
                  FROM ${table}_token_floor f
                 WHERE f.id = 1
                   AND f.token_server <=> ${token_server}
                  LOCK IN SHARE MODE
                    ON DUPLICATE KEY UPDATE
                       last_token   = LAST_INSERT_ID(last_token
                                                     + IF(${table}_token.token_server <=> ${token_server},
                                                          0, 4294967296) + ?),
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
