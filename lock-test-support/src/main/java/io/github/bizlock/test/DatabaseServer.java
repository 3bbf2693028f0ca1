package io.github.bizlock.test;

/** A running MySQL-compatible server that tests may create databases on, as a user allowed to do so. */
public interface DatabaseServer {

    /**
     * JDBC URL of one database on this server.
     *
     * @param database the schema name, or an empty string for none
     */
    String jdbcUrl(String database);

    String username();

    String password();

    /** Where the server comes from, e.g. {@code embedded} or {@code 127.0.0.1:3306}. */
    String origin();
}
