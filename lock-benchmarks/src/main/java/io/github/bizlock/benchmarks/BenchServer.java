package io.github.bizlock.benchmarks;

import io.github.bizlock.test.DatabaseServer;
import io.github.bizlock.test.EmbeddedMySqlServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The server a run measures, with a fresh benchmark database on it: {@code mysql} starts the embedded MySQL 8.0,
 * {@code mariadb} connects to the server at 127.0.0.1:3306.
 *
 * @param url the JDBC URL of the benchmark database
 * @param origin where the server runs, for the report
 */
record BenchServer(String url, String user, String password, String origin) {

    static final String DATABASE = "bizlock_bench";
    private static final String OPTIONS = "sslMode=DISABLED&allowPublicKeyRetrieval=true";

    /** Starts or finds the server named {@code server} and creates the benchmark database on it, dropping any left. */
    static BenchServer start(String server) throws SQLException {
        String serverUrl;
        String user;
        String password;
        String origin;
        if (server.equals("mysql")) {
            int port = Integer.parseInt(Settings.get("BENCH_MYSQL_PORT", "33307"));
            Path data = Path.of(Settings.get("BENCH_MYSQL_DATA", "/dev/shm/bizlock-bench-mysql"));
            DatabaseServer mysql = EmbeddedMySqlServer.startOrReuse(data, port);
            serverUrl = mysql.jdbcUrl("");
            user = mysql.username();
            password = mysql.password();
            origin = "embedded, port " + port + ", data in " + data;
        } else {
            serverUrl = Settings.get("BENCH_MARIADB_URL", "jdbc:mysql://127.0.0.1:3306/?" + OPTIONS);
            user = Settings.get("BENCH_MARIADB_USER", "root");
            password = Settings.get("BENCH_MARIADB_PASSWORD", "");
            origin = serverUrl.replaceFirst("\\?.*", "");
        }
        recreateDatabase(serverUrl, user, password);
        return new BenchServer(databaseUrl(serverUrl), user, password, origin);
    }

    /** Where the subjects connect: this database, and Redis on this machine. */
    Env env(int redisPort) {
        return new Env(url, user, password, "127.0.0.1", redisPort);
    }

    private static String databaseUrl(String serverUrl) {
        String url = serverUrl.replaceFirst("/(\\?|$)", "/" + DATABASE + "$1");
        if (!url.contains(DATABASE)) {
            throw new IllegalStateException("cannot place the database into " + serverUrl);
        }
        if (!url.contains("sslMode")) {
            url = url + (url.contains("?") ? "&" : "?") + OPTIONS;
        }
        return url;
    }

    private static void recreateDatabase(String serverUrl, String user, String password) throws SQLException {
        try (Connection connection = DriverManager.getConnection(serverUrl, user, password);
                Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + DATABASE);
            statement.execute("CREATE DATABASE " + DATABASE + " CHARACTER SET utf8mb4");
        }
    }
}
