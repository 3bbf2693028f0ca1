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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Server-side counters: MySQL/MariaDB global status (statements, fsyncs, redo), the binary log's syncs where
 * performance_schema counts them, and Redis's processed commands.
 */
final class Stats implements AutoCloseable {

    /**
     * A reading of the database counters; {@code redoBytes} and {@code binlogSyncs} are -1 where the server does not
     * count them.
     *
     * @param fsyncs InnoDB's {@code Innodb_data_fsyncs}
     * @param redoBytes the redo log's current LSN: {@code Innodb_lsn_current} (MariaDB) or
     *     {@code Innodb_redo_log_current_lsn} (MySQL 8.0.30+)
     * @param binlogSyncs the binary log's file operations other than reads and writes ({@code COUNT_MISC} of
     *     {@code wait/io/file/sql/binlog}), in a steady run its fsyncs
     */
    record Reading(
            long questions, long updates, long transactionControl, long fsyncs, long redoBytes, long binlogSyncs) {

        /**
         * Counts between two readings, less the statements of reading: the earlier reading's binary log query and
         * the later one's {@code SHOW GLOBAL STATUS}.
         */
        Reading minus(Reading before) {
            return new Reading(
                    questions - before.questions - 2,
                    updates - before.updates,
                    transactionControl - before.transactionControl,
                    fsyncs - before.fsyncs,
                    redoBytes < 0 || before.redoBytes < 0 ? -1 : redoBytes - before.redoBytes,
                    binlogSyncs < 0 || before.binlogSyncs < 0 ? -1 : binlogSyncs - before.binlogSyncs);
        }
    }

    /** The settings that decide what a commit costs, shown in the report's header. */
    static final List<String> DURABILITY =
            List.of("innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin", "binlog_format");

    private static final String STATUS = "SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_update',"
            + " 'Com_commit', 'Com_rollback', 'Com_begin', 'Com_set_option', 'Innodb_data_fsyncs',"
            + " 'Innodb_lsn_current', 'Innodb_redo_log_current_lsn')";

    private static final String BINLOG_SYNCS = """
            SELECT COUNT_MISC
              FROM performance_schema.file_summary_by_event_name
             WHERE EVENT_NAME = 'wait/io/file/sql/binlog'
            """;

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
                ResultSet rows = statement.executeQuery(STATUS)) {
            while (rows.next()) {
                values.put(rows.getString(1).toLowerCase(Locale.ROOT), rows.getLong(2));
            }
        }
        return new Reading(
                values.getOrDefault("questions", 0L),
                values.getOrDefault("com_update", 0L),
                values.getOrDefault("com_commit", 0L)
                        + values.getOrDefault("com_rollback", 0L)
                        + values.getOrDefault("com_begin", 0L)
                        + values.getOrDefault("com_set_option", 0L),
                values.getOrDefault("innodb_data_fsyncs", 0L),
                values.getOrDefault("innodb_lsn_current", values.getOrDefault("innodb_redo_log_current_lsn", -1L)),
                binlogSyncs());
    }

    /** -1 where performance_schema is off or does not instrument the binary log (MariaDB's default). */
    private long binlogSyncs() {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(BINLOG_SYNCS)) {
            return row.next() ? row.getLong(1) : -1;
        } catch (SQLException ex) {
            return -1;
        }
    }

    /** The {@link #DURABILITY} settings as {@code `name` = value}, in that order. */
    String durability() throws SQLException {
        Map<String, String> values = new HashMap<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SHOW GLOBAL VARIABLES WHERE Variable_name IN ("
                        + DURABILITY.stream().map(name -> "'" + name + "'").collect(Collectors.joining(", "))
                        + ")")) {
            while (rows.next()) {
                values.put(rows.getString(1).toLowerCase(Locale.ROOT), rows.getString(2));
            }
        }
        return DURABILITY.stream()
                .map(name -> "`" + name + "` = " + values.getOrDefault(name, "n/a"))
                .collect(Collectors.joining(", "));
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
