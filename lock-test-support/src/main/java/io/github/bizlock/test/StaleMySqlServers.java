package io.github.bizlock.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Embedded servers whose test JVM ended without stopping them: a JVM killed outright (a mutation-testing minion that
 * timed out, a {@code kill -9}) runs no shutdown hook, and its {@code mysqld} and data directory stayed behind, one
 * per killed JVM, until memory ran out. Each data directory records the JVM that owns it; a directory whose owner is
 * gone has its server stopped and is removed when the next embedded server starts.
 */
final class StaleMySqlServers {

    static final String PREFIX = "bizlock-mysql-";
    private static final String OWNER_FILE = "owner.pid";

    private StaleMySqlServers() {}

    /** Records this JVM as the owner of a data directory it just made. */
    static void claim(Path dataDirectory) throws IOException {
        Files.writeString(
                dataDirectory.resolve(OWNER_FILE),
                Long.toString(ProcessHandle.current().pid()));
    }

    /** Stops the servers of the data directories under {@code scratch} whose owner JVM has ended, and removes them. */
    static void reap(Path scratch) {
        try (DirectoryStream<Path> directories = Files.newDirectoryStream(scratch, PREFIX + "*")) {
            for (Path directory : directories) {
                if (ownerEnded(directory)) {
                    serverOf(directory).ifPresent(StaleMySqlServers::stop);
                    MySqlBinary.deleteRecursively(directory);
                }
            }
        } catch (IOException ex) {
            // Not ours to fail a test over: the directories are left as they were.
        }
    }

    /** Whether the directory names an owner that is no longer running; a directory without one is being set up. */
    static boolean ownerEnded(Path directory) {
        Optional<Long> owner = pid(directory.resolve(OWNER_FILE));
        return owner.isPresent()
                && ProcessHandle.of(owner.get())
                        .map(process -> !process.isAlive())
                        .orElse(true);
    }

    /** The running {@code mysqld} of a data directory: its pid file's process, if that is a mysqld of this directory. */
    private static Optional<ProcessHandle> serverOf(Path directory) {
        return pid(directory.resolve("mysqld.pid"))
                .flatMap(ProcessHandle::of)
                .filter(process -> process.info()
                        .commandLine()
                        .map(line -> line.contains("mysqld") && line.contains(directory.toString()))
                        .orElse(false));
    }

    private static void stop(ProcessHandle server) {
        server.destroy();
        try {
            server.onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception ex) {
            server.destroyForcibly();
        }
    }

    private static Optional<Long> pid(Path file) {
        try {
            return Optional.of(Long.parseLong(
                    Files.readString(file, StandardCharsets.US_ASCII).trim()));
        } catch (IOException | NumberFormatException ex) {
            return Optional.empty();
        }
    }
}
