package io.github.bizlock.internal.jdbc.dialect;

import java.util.regex.Pattern;

/**
 * The lock table's name, checked once so it can be put into SQL text safely: letters, digits and underscores only,
 * starting with a letter or underscore, at most {@value #MAX_LENGTH} characters: MySQL and MariaDB allow identifiers of
 * 64, and the longest name derived from the table's is {@code <table>_migrations_s_idx}, the index Flyway creates on
 * the history table of bizlock's migrations (the migrations' own longest is {@code <table>_row_created_at}).
 */
public final class TableName {

    public static final String DEFAULT = "biz_lock";

    /** The longest suffix of a name derived from the table's: Flyway's index on bizlock's migration history. */
    private static final String LONGEST_SUFFIX = "_migrations_s_idx";

    /** 64 less the length of {@link #LONGEST_SUFFIX}. */
    public static final int MAX_LENGTH = 47;

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private TableName() {}

    /**
     * Returns the name if it is a safe identifier.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static String validate(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("The lock table name must not be blank; the default is " + DEFAULT);
        }
        if (!IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("The lock table name '" + name + "' is not a plain SQL identifier: use"
                    + " letters, digits and underscores only, starting with a letter or underscore (no schema prefix,"
                    + " quotes or spaces; point the DataSource at the schema instead)");
        }
        if (name.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("The lock table name '" + name + "' is " + name.length()
                    + " characters; at most " + MAX_LENGTH + " are allowed: MySQL and MariaDB allow identifiers"
                    + " of 64 characters, and the longest name derived from it would be " + name + LONGEST_SUFFIX
                    + ", the index Flyway creates on the history table of bizlock's migrations");
        }
        return name;
    }
}
