package io.github.bizlock.internal.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One mariadbd process of this JVM, on its own data directory, for {@link PrimaryAndReplica}. */
final class MariaDbProcess {

    private final List<String> command;
    private final int port;
    private final Path dir;
    private Process process;

    private MariaDbProcess(List<String> command, int port, Path dir) {
        this.command = command;
        this.port = port;
        this.dir = dir;
    }

    int port() {
        return port;
    }

    static MariaDbProcess start(Path mariadbd, Path installDb, Path dir, int port, int serverId) throws Exception {
        Path data = dir.resolve("data");
        Files.createDirectories(dir);
        String user = System.getProperty("user.name");
        run(
                List.of(
                        installDb.toString(),
                        "--no-defaults",
                        "--user=" + user,
                        "--datadir=" + data,
                        "--auth-root-authentication-method=normal",
                        "--skip-test-db"),
                dir.resolve("install.log"));
        List<String> command = List.of(
                mariadbd.toString(),
                "--no-defaults",
                "--user=" + user,
                "--datadir=" + data,
                "--socket=" + dir.resolve("mysqld.sock"),
                "--pid-file=" + dir.resolve("mysqld.pid"),
                "--log-error=" + dir.resolve("error.log"),
                "--port=" + port,
                "--bind-address=127.0.0.1",
                "--server-id=" + serverId,
                "--log-bin=" + dir.resolve("binlog"),
                "--log-slave-updates",
                "--innodb-buffer-pool-size=32M",
                "--innodb-log-file-size=16M",
                "--performance-schema=OFF");
        MariaDbProcess server = new MariaDbProcess(command, port, dir);
        server.restart();
        return server;
    }

    /** Starts mariadbd on this server's data (after a {@link #kill()}: as after a crash). */
    void restart() throws Exception {
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        dir.resolve("stdout.log").toFile()))
                .start();
        awaitAnswering();
    }

    private static void run(List<String> command, Path log) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(command.get(0) + " failed: " + Files.readString(log));
        }
    }

    private void awaitAnswering() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Connection connection = connect("")) {
                return;
            } catch (SQLException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    Path log = dir.resolve("error.log");
                    throw new IllegalStateException("mariadbd on port " + port + " did not start: "
                            + (Files.exists(log) ? Files.readString(log) : "no error log"));
                }
                Thread.sleep(100);
            }
        }
    }

    Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(url(database), "root", "");
    }

    private String url(String database) {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + database
                + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&connectTimeout=2000";
    }

    HikariDataSource dataSource(String database) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url(database));
        config.setUsername("root");
        config.setPassword("");
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        return new HikariDataSource(config);
    }

    void execute(String sql) throws SQLException {
        try (Connection connection = connect("");
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    String query(String sql) throws SQLException {
        try (Connection connection = connect("");
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getString(1);
        }
    }

    void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
