package io.github.bizlock.test;

import java.net.URI;

/** A server that is already running, reached through {@code BIZLOCK_TEST_JDBC_URL}. */
final class ExternalServer implements DatabaseServer {

    static final String URL_VARIABLE = "BIZLOCK_TEST_JDBC_URL";
    static final String USER_VARIABLE = "BIZLOCK_TEST_USER";
    static final String PASSWORD_VARIABLE = "BIZLOCK_TEST_PASSWORD";
    static final String DEFAULT_URL = "jdbc:mysql://127.0.0.1:3306/";

    private final String hostAndPort;
    private final String query;
    private final String username;
    private final String password;

    private ExternalServer(String url, String username, String password) {
        if (!url.startsWith("jdbc:mysql://") && !url.startsWith("jdbc:mariadb://")) {
            throw new IllegalStateException(
                    URL_VARIABLE + "=" + url
                            + " is not a MySQL JDBC URL; use the form jdbc:mysql://host:port/ (the database is created per test)");
        }
        URI uri = URI.create(url.substring("jdbc:".length()));
        this.hostAndPort = uri.getHost() + ":" + (uri.getPort() < 0 ? 3306 : uri.getPort());
        this.query = uri.getRawQuery();
        this.username = username;
        this.password = password;
    }

    static ExternalServer fromEnvironment() {
        return new ExternalServer(
                setting(URL_VARIABLE, DEFAULT_URL), setting(USER_VARIABLE, "root"), setting(PASSWORD_VARIABLE, ""));
    }

    private static String setting(String name, String fallback) {
        String value = System.getProperty(name, System.getenv(name));
        return value == null ? fallback : value;
    }

    @Override
    public String jdbcUrl(String database) {
        return JdbcUrls.mysql(hostAndPort, database, query);
    }

    @Override
    public String username() {
        return username;
    }

    @Override
    public String password() {
        return password;
    }

    @Override
    public String origin() {
        return hostAndPort;
    }
}
