package io.github.bizlock.internal.jdbc.dialect;

import java.util.regex.Pattern;

/**
 * The lock table's name, checked once so it can be put into SQL text safely: letters, digits and underscores only,
 * starting with a letter or underscore, at most {@value #MAX_LENGTH} characters (MySQL allows 64, and the token floor
 * table adds {@code _token_floor}).
 */
public final class TableName {

    public static final String DEFAULT = "biz_lock";
    public static final int MAX_LENGTH = 52;

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
                    + " characters; at most " + MAX_LENGTH + " are allowed");
        }
        return name;
    }
}
