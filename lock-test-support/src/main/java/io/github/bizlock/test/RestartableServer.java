package io.github.bizlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A server of a test's own, which the test may stop and start again (a restart under held locks), never the shared
 * one: MySQL 8.0 from the embedded server's binary, or MariaDB from the machine's {@code mariadbd} (Debian's
 * {@code mariadb-server}), on a port of the given range, with its data in a new directory under {@code /dev/shm} (or
 * the temporary directory), deleted on {@link #close()}. Root without a password, as the test servers.
 */
public final class RestartableServer implements AutoCloseable {

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);

    /** Which server binary. */
    public enum Flavor {
        MYSQL,
        MARIADB
    }

    private final Flavor flavor;
    private final Path directory;
    private final int port;
    private final List<String> command;
    private Process process;

    private RestartableServer(Flavor flavor, Path directory, int port, List<String> command) {
        this.flavor = flavor;
        this.directory = directory;
        this.port = port;
        this.command = command;
    }

    /** The flavor that matches {@code BIZLOCK_TEST_DB}: MariaDB for {@code mariadb} and {@code galera}, else MySQL. */
    public static Flavor flavorOfTestDatabase() {
        TestDatabaseKind kind = TestDatabaseKind.fromEnvironment();
        return kind == TestDatabaseKind.MARIADB || kind == TestDatabaseKind.GALERA ? Flavor.MARIADB : Flavor.MYSQL;
    }

    /** Initializes a data directory and starts the server on the first free port from {@code firstPort} to {@code lastPort}. */
    public static RestartableServer start(Flavor flavor, int firstPort, int lastPort) {
        try {
            Path scratch = Files.isWritable(Path.of("/dev/shm"))
                    ? Path.of("/dev/shm")
                    : Path.of(System.getProperty("java.io.tmpdir"));
            Path directory = Files.createTempDirectory(scratch, "bizlock-restartable-");
            int port = freePort(firstPort, lastPort);
            Path data = directory.resolve("data");
            List<String> command = new ArrayList<>();
            if (flavor == Flavor.MYSQL) {
                Path base = MySqlBinary.unpacked();
                Path mysqld = base.resolve("bin/mysqld");
                MySqlBinary.requireSharedLibraries(mysqld);
                MySqlBinary.initialize(mysqld, base, directory);
                command.addAll(List.of(mysqld.toString(), "--no-defaults", "--basedir=" + base, "--mysqlx=OFF"));
            } else {
                Path mariadbd = Path.of("/usr/sbin/mariadbd");
                if (!Files.isExecutable(mariadbd)) {
                    throw new IllegalStateException(
                            "A restartable MariaDB needs /usr/sbin/mariadbd: apt-get install -y mariadb-server");
                }
                run(List.of(
                        "mariadb-install-db",
                        "--no-defaults",
                        "--datadir=" + data,
                        "--auth-root-authentication-method=normal",
                        "--user=root",
                        "--skip-test-db"));
                command.addAll(List.of(mariadbd.toString(), "--no-defaults", "--skip-log-bin"));
            }
            command.addAll(List.of(
                    "--datadir=" + data,
                    "--user=root",
                    "--bind-address=127.0.0.1",
                    "--port=" + port,
                    "--socket=" + directory.resolve("server.sock"),
                    "--pid-file=" + directory.resolve("server.pid"),
                    "--log-error=" + directory.resolve("error.log"),
                    "--max-connections=500"));
            RestartableServer server = new RestartableServer(flavor, directory, port, List.copyOf(command));
            server.start();
            return server;
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not start a restartable " + flavor + " server", ex);
        }
    }

    /** Starts the server (again), on the same port with the same data, and waits until it accepts connections. */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("The server runs already");
        }
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(
                            directory.resolve("console.log").toFile()))
                    .start();
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + command.get(0), ex);
        }
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        flavor + " exited with " + process.exitValue() + "; see " + directory.resolve("error.log"));
            }
            try (Connection ignored = DriverManager.getConnection(jdbcUrl(""), "root", "")) {
                return;
            } catch (SQLException ex) {
                sleep(100);
            }
        }
        throw new IllegalStateException(flavor + " did not accept connections within " + STARTUP_TIMEOUT + "; see "
                + directory.resolve("error.log"));
    }

    /** Stops the server as an operator restarting it would (SIGTERM: it ends every session), and waits until it is gone. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    /** A JDBC URL for {@code database} on this server. */
    public String jdbcUrl(String database) {
        return JdbcUrls.mysql("127.0.0.1:" + port, database, null);
    }

    /** Creates {@code database} and returns its URL. */
    public String createDatabase(String database) {
        try (Connection connection = DriverManager.getConnection(jdbcUrl(""), "root", "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE IF NOT EXISTS `" + database + "`");
        } catch (SQLException ex) {
            throw new IllegalStateException("Could not create database " + database, ex);
        }
        return jdbcUrl(database);
    }

    public int port() {
        return port;
    }

    public Flavor flavor() {
        return flavor;
    }

    @Override
    public void close() {
        stop();
        MySqlBinary.deleteRecursively(directory);
    }

    private static int freePort(int firstPort, int lastPort) throws IOException {
        for (int port = firstPort; port <= lastPort; port++) {
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException ex) {
                // taken: the next one
            }
        }
        throw new IOException("No free port from " + firstPort + " to " + lastPort);
    }

    private static void run(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (process.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + command.get(0), ex);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the server", ex);
        }
    }
}
