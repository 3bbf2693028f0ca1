package io.github.bizlock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/** Server-side statement counters: MySQL/MariaDB global status, and Redis's processed commands. */
final class Stats implements AutoCloseable {

    /** A reading of the database counters. */
    record Reading(long questions, long updates, long transactionControl) {

        /** Statements between two readings, less the later reading itself. */
        Reading minus(Reading before) {
            return new Reading(
                    questions - before.questions - 1,
                    updates - before.updates,
                    transactionControl - before.transactionControl);
        }
    }

    private final Connection connection;
    private final String redisHost;
    private final int redisPort;

    Stats(Env env) throws SQLException {
        this.connection = DriverManager.getConnection(env.jdbcUrl(), env.user(), env.password());
        this.redisHost = env.redisHost();
        this.redisPort = env.redisPort();
    }

    /**
     * {@code Questions} counts every statement a client sends; transaction control is {@code BEGIN}, {@code COMMIT},
     * {@code ROLLBACK} and {@code SET autocommit} ({@code Com_set_option}).
     */
    Reading read() throws SQLException {
        Map<String, Long> values = new HashMap<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SHOW GLOBAL STATUS WHERE Variable_name IN"
                                + " ('Questions', 'Com_update', 'Com_commit', 'Com_rollback', 'Com_begin', 'Com_set_option')")) {
            while (rows.next()) {
                values.put(rows.getString(1).toLowerCase(java.util.Locale.ROOT), rows.getLong(2));
            }
        }
        return new Reading(
                values.getOrDefault("questions", 0L),
                values.getOrDefault("com_update", 0L),
                values.getOrDefault("com_commit", 0L)
                        + values.getOrDefault("com_rollback", 0L)
                        + values.getOrDefault("com_begin", 0L)
                        + values.getOrDefault("com_set_option", 0L));
    }

    /** Redis's {@code total_commands_processed}, read with a plain {@code INFO stats}. */
    long redisCommands() throws IOException {
        try (Socket socket = new Socket(redisHost, redisPort)) {
            OutputStream out = socket.getOutputStream();
            out.write("*2\r\n$4\r\nINFO\r\n$5\r\nstats\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in =
                    new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("total_commands_processed:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                }
            }
            throw new IOException("Redis INFO stats has no total_commands_processed");
        }
    }

    String serverVersion() throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT VERSION()")) {
            row.next();
            return row.getString(1);
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
