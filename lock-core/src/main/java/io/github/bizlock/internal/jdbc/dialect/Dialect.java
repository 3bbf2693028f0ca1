package io.github.bizlock.internal.jdbc.dialect;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A server family, MySQL 8 or MariaDB, and the lock table that bizlock's statements are rendered for. The statements
 * live beside the classes that run them, as templates naming the table {@code ${table}}; only ROW mode's differ
 * between the families.
 */
public abstract sealed class Dialect permits MySqlDialect, MariaDbDialect {

    private static final String TABLE = "${table}";

    private final String table;

    protected Dialect(String table) {
        this.table = TableName.validate(table);
    }

    private static final int MAX_RENDERED = 256;

    private final Map<String, String> rendered = new ConcurrentHashMap<>();

    /** The server family, e.g. {@code MySQL}. */
    public abstract String product();

    /** The statement of a template: {@code ${table}} replaced by the lock table's name, which was checked to be safe. */
    public final String render(String template) {
        // Statements are built on every lock operation: render each once. Templates are constants, except the few
        // that carry a wait in seconds, so the map stays small; past the bound, render without keeping.
        String cached = rendered.get(template);
        if (cached != null) {
            return cached;
        }
        String sql = template.replace(TABLE, table);
        if (rendered.size() < MAX_RENDERED) {
            rendered.put(template, sql);
        }
        return sql;
    }
}
