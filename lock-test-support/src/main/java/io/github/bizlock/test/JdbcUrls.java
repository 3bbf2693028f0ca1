package io.github.bizlock.test;

/** Builds Connector/J URLs with the settings every test connection shares. */
final class JdbcUrls {

    // Test servers run without TLS; the MariaDB package has none configured.
    private static final String DEFAULTS = "sslMode=DISABLED&allowPublicKeyRetrieval=true";

    private JdbcUrls() {}

    static String mysql(String hostAndPort, String database, String extraQuery) {
        String query = extraQuery == null || extraQuery.isBlank() ? DEFAULTS : DEFAULTS + "&" + extraQuery;
        return "jdbc:mysql://" + hostAndPort + "/" + database + "?" + query;
    }
}
