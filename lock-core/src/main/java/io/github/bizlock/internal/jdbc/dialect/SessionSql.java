package io.github.bizlock.internal.jdbc.dialect;

/** The statements every held session is checked and stopped with, alike on MySQL 8 and MariaDB. */
public final class SessionSql {

    /** This session's connection id. */
    public static final String CONNECTION_ID = "SELECT CONNECTION_ID()";

    /**
     * This session's connection id and its client address as the server lists it: an account sees its own sessions
     * in the process list without the PROCESS privilege.
     */
    public static final String CONNECTION_ID_AND_CLIENT = """
            SELECT CONNECTION_ID(),
                   (SELECT HOST FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID())
            """;

    /**
     * Whether the server the kill connection is on runs the session: a connection of that id from that client
     * address. After a failover or a restart, the same id names another connection, perhaps another instance's.
     */
    public static final String RUNS_SESSION = """
            SELECT COUNT(*)
              FROM information_schema.PROCESSLIST
             WHERE ID = ?
               AND HOST = ?
            """;

    private SessionSql() {}

    /** Has the server close this session once it has been silent for that many seconds; frees its locks. */
    public static String endWhenSilentFor(long seconds) {
        return "SET SESSION wait_timeout = " + seconds;
    }

    /** Ends the statement running on another session; the connection id is a number put into the text. */
    public static String killQuery(long connectionId) {
        return "KILL QUERY " + connectionId;
    }
}
