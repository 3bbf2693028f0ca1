package io.github.bizlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Signals for {@link ChildJvm}, sent with {@code kill}, and the wait for a stop to take hold. */
final class Signals {

    private Signals() {}

    /**
     * Sends {@code signal} to {@code pid}; for {@code STOP}, returns only once every thread of the process has stopped.
     * {@code kill} returns as soon as the signal is queued, and the stop reaches the threads one by one: until then a
     * thread of the child may still answer (seen once in 40 tries on a busy machine).
     *
     * @return {@code null}, or why it failed
     */
    static String send(long pid, String signal, Duration bound) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .redirectErrorStream(true)
                .start();
        if (!kill.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
            kill.destroyForcibly();
            return "kill -" + signal + " failed: "
                    + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
        if (signal.equals("STOP") && !awaitStopped(pid, bound)) {
            return "not every thread stopped within " + bound;
        }
        return null;
    }

    /** Waits until every thread of {@code pid} is stopped ({@code T} in {@code /proc}); true at once without /proc. */
    private static boolean awaitStopped(long pid, Duration bound) throws InterruptedException {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        if (!Files.isDirectory(tasks)) {
            return true;
        }
        long deadline = System.nanoTime() + bound.toNanos();
        while (!allStopped(tasks)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(1);
        }
        return true;
    }

    private static boolean allStopped(Path tasks) {
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : threads.toList()) {
                if (!stopped(thread)) {
                    return false;
                }
            }
            return true;
        } catch (NoSuchFileException ex) {
            return true; // the process is gone: nothing of it runs
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static boolean stopped(Path thread) throws IOException {
        List<String> stat;
        try {
            stat = Files.readAllLines(thread.resolve("stat"));
        } catch (NoSuchFileException ex) {
            return true; // the thread ended
        }
        // "pid (name) S ...": the state follows the name, which may itself hold spaces and parentheses
        String line = stat.isEmpty() ? "" : stat.get(0);
        int end = line.lastIndexOf(')');
        char state = end < 0 || end + 2 >= line.length() ? '?' : line.charAt(end + 2);
        return state == 'T' || state == 't';
    }
}
