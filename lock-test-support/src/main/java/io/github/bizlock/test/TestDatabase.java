package io.github.bizlock.test;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.List;
import javax.sql.DataSource;

/** One empty database made for one test class, with a pooled {@link DataSource}; closing it drops the database. */
public final class TestDatabase implements AutoCloseable {

    private final TestDatabases.ServerInfo server;
    private final String name;
    private final HikariDataSource dataSource;

    TestDatabase(TestDatabases.ServerInfo server, String name) {
        this.server = server;
        this.name = name;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl());
        config.setUsername(username());
        config.setPassword(password());
        config.setMaximumPoolSize(40);
        config.setMinimumIdle(0);
        config.setPoolName("test-" + name);
        this.dataSource = new HikariDataSource(config);
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** The database (schema) name. */
    public String name() {
        return name;
    }

    /** A JDBC URL for this database, e.g. to hand to a child JVM. */
    public String jdbcUrl() {
        return server.server().jdbcUrl(name);
    }

    /** A JDBC URL for this database on each node of the cluster, node 1 first; one URL on a single server. */
    public List<String> nodeJdbcUrls() {
        return server.server().nodeJdbcUrls(name);
    }

    /** A JDBC URL for this database that fails over between the cluster's nodes, {@code firstNode} (from 1) first. */
    public String failoverJdbcUrl(int firstNode) {
        return server.server().failoverJdbcUrl(name, firstNode);
    }

    public String username() {
        return server.server().username();
    }

    public String password() {
        return server.server().password();
    }

    public TestDatabases.ServerInfo server() {
        return server;
    }

    @Override
    public void close() {
        dataSource.close();
        // A lock some test left held (a ROW lock's open transaction) would make the drop wait for it without end,
        // and a mutation run's minion with it: fail the test class after 30 s instead.
        TestDatabases.execute(server.server(), "SET SESSION lock_wait_timeout = 30", "DROP DATABASE IF EXISTS " + name);
    }
}
