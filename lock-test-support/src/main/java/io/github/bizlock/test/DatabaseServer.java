package io.github.bizlock.test;

import java.util.List;

/** A running MySQL-compatible server that tests may create databases on, as a user allowed to do so. */
public interface DatabaseServer {

    /**
     * JDBC URL of one database on this server.
     *
     * @param database the schema name, or an empty string for none
     */
    String jdbcUrl(String database);

    /**
     * JDBC URLs of one database on each node of a cluster, node 1 first; a single server has one. Tests that spread
     * JVMs or threads over a cluster's nodes connect through these.
     */
    default List<String> nodeJdbcUrls(String database) {
        return List.of(jdbcUrl(database));
    }

    /**
     * A JDBC URL of one database that fails over between a cluster's nodes, {@code firstNode} (from 1) first; a single
     * server's plain URL.
     */
    default String failoverJdbcUrl(String database, int firstNode) {
        return jdbcUrl(database);
    }

    String username();

    String password();

    /** Where the server comes from, e.g. {@code embedded} or {@code 127.0.0.1:3306}. */
    String origin();
}
