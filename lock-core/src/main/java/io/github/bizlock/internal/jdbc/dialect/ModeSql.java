package io.github.bizlock.internal.jdbc.dialect;

import io.github.bizlock.LockMode;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * The statements on the table that binds each lock name to one mode, alike on MySQL 8 and MariaDB, rendered when built.
 */
public final class ModeSql {

    private static final String BIND = """
            INSERT INTO ${table}_mode (biz_type, lock_mode, permits, created_at)
            VALUES (?, ?, ?, UTC_TIMESTAMP(6))
                ON DUPLICATE KEY UPDATE
                   lock_mode = lock_mode
            """;

    private static final String BOUND_MODE = """
            SELECT lock_mode, permits
              FROM ${table}_mode
             WHERE biz_type = ?
            """;

    private static final String CHANGE = """
            UPDATE ${table}_token_floor
               SET floor_token = GREATEST(floor_token,
                                          (SELECT COALESCE(MAX(fencing_token), 0) FROM ${table}),
                                          (SELECT COALESCE(MAX(last_token), 0) FROM ${table}_token))
             WHERE id = 1;
            DELETE FROM ${table} WHERE biz_type = ${name};
            DELETE FROM ${table}_token WHERE biz_type = ${name};
            UPDATE ${table}_mode SET lock_mode = ${mode}, permits = ${permits} WHERE biz_type = ${name};
            """;

    private final String bind;
    private final String boundMode;
    private final String change;

    public ModeSql(Dialect dialect) {
        this.bind = dialect.render(BIND);
        this.boundMode = dialect.render(BOUND_MODE);
        this.change = dialect.render(CHANGE, "mode", "permits", "name");
    }

    /**
     * Binds a name to a mode and permits (0 for plain locks) unless it is bound already, leaving a bound name as it is;
     * parameters name, mode, permits. Not
     * {@code INSERT IGNORE}, which would also turn other errors into warnings.
     */
    public String bind() {
        return bind;
    }

    /** The mode and permits a name is bound to; parameter name. */
    public String boundMode() {
        return boundMode;
    }

    /**
     * The script that moves a name to another mode, to run with every instance stopped. Each statement is safe on its
     * own, in this order: the token floor rises above every fencing token issued so far, the name's lease rows and
     * token counters go (no holder is left, and each key's next token starts above the floor, whatever mode issued
     * the ones before), and the name is bound to the new mode and permits (0 for plain locks).
     */
    public String changeStatements(String name, LockMode mode, int permits) {
        // The mode and permits first: a name's literal may read "${mode}", theirs never "${name}".
        String filled =
                Dialect.fill(Dialect.fill(change, "mode", literal(mode.name())), "permits", Integer.toString(permits));
        return Dialect.fill(filled, "name", literal(name));
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
