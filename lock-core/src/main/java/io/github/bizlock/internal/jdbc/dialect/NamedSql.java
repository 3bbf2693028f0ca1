package io.github.bizlock.internal.jdbc.dialect;

/** NAMED mode's statements: the server's own named locks, on no table, alike on MySQL 8 and MariaDB. */
public final class NamedSql {

    /** Takes a named lock, waiting up to whole seconds; parameters name, seconds. Also selects the connection id. */
    public static final String GET_LOCK = "SELECT GET_LOCK(?, ?), CONNECTION_ID()";

    /** Releases a named lock: 1 if this session held it, 0 if another does, NULL if nobody; parameter name. */
    public static final String RELEASE_LOCK = "SELECT RELEASE_LOCK(?)";

    /** Releases every named lock this session holds, and counts them (MySQL 5.7+, MariaDB 10.5+). */
    public static final String RELEASE_ALL_LOCKS = "SELECT RELEASE_ALL_LOCKS()";

    /** Whether this session holds a named lock (1), or not (0 or NULL); parameter name. */
    public static final String HOLDS_LOCK = "SELECT IS_USED_LOCK(?) = CONNECTION_ID()";

    private NamedSql() {}
}
