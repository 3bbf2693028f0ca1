package io.github.bizlock.internal.jdbc.session;

/** The statements every held session is checked and stopped with, alike on MySQL 8 and MariaDB. */
public final class SessionSql {

    /** This session's connection id. */
    public static final String CONNECTION_ID = "SELECT CONNECTION_ID()";

    private SessionSql() {}

    /** Has the server close this session once it has been silent for that many seconds; frees its locks. */
    static String endWhenSilentFor(long seconds) {
        return "SET SESSION wait_timeout = " + seconds;
    }

    /** Ends the statement running on another session; the connection id is a number put into the text. */
    static String killQuery(long connectionId) {
        return "KILL QUERY " + connectionId;
    }
}
