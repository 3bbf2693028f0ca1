package io.github.bizlock.internal.jdbc;

import io.github.bizlock.LockMode;
import io.github.bizlock.internal.jdbc.dialect.Dialect;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** The statements on the table that binds each lock name to one mode, alike on MySQL 8 and MariaDB. */
final class ModeSql {

    private final Dialect dialect;

    ModeSql(Dialect dialect) {
        this.dialect = dialect;
    }

    /**
     * Binds a name to a mode unless it is bound already, leaving a bound name as it is; parameters name, mode. Not
     * {@code INSERT IGNORE}, which would also turn other errors into warnings.
     */
    String bind() {
        return dialect.render("""
                INSERT INTO ${table}_mode (biz_type, lock_mode, created_at)
                VALUES (?, ?, UTC_TIMESTAMP(6))
                    ON DUPLICATE KEY UPDATE
                       lock_mode = lock_mode
                """);
    }

    /** The mode a name is bound to; parameter name. */
    String boundMode() {
        return dialect.render("""
                SELECT lock_mode
                  FROM ${table}_mode
                 WHERE biz_type = ?
                """);
    }

    /**
     * The script that moves a name to another mode, to run with every instance stopped. Each statement is safe on its
     * own, in this order: the token floor rises above every fencing token issued so far, the name's lease rows and
     * token counters go (no holder is left, and each key's next token starts above the floor, whatever mode issued
     * the ones before), and the name is bound to the new mode.
     */
    String changeStatements(String name, LockMode mode) {
        return dialect.render("""
                        UPDATE ${table}_token_floor
                           SET floor_token = GREATEST(floor_token,
                                                      (SELECT COALESCE(MAX(fencing_token), 0) FROM ${table}),
                                                      (SELECT COALESCE(MAX(last_token), 0) FROM ${table}_token))
                         WHERE id = 1;
                        DELETE FROM ${table} WHERE biz_type = ${name};
                        DELETE FROM ${table}_token WHERE biz_type = ${name};
                        UPDATE ${table}_mode SET lock_mode = ${mode} WHERE biz_type = ${name};
                        """).replace("${mode}", literal(mode.name())).replace("${name}", literal(name));
    }

    /**
     * A string literal an operator can paste into any SQL client: quoted when it is plain printable ASCII without
     * quotes or backslashes, else a hex literal of its UTF-8 bytes (the columns are {@code VARBINARY}), which means
     * the same whatever the client's character set and {@code sql_mode}.
     */
    static String literal(String text) {
        if (text.chars().allMatch(c -> c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')) {
            return "'" + text + "'";
        }
        return "X'" + HexFormat.of().formatHex(text.getBytes(StandardCharsets.UTF_8)) + "'";
    }
}
