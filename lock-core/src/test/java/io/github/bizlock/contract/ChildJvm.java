package io.github.bizlock.contract;

import io.github.bizlock.test.TestDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A second JVM running {@link LockWorker} on this test's classpath, talking line by line over stdin/stdout. Lines the
 * worker prints that are not protocol lines (logging) are kept for failure messages.
 */
public final class ChildJvm implements AutoCloseable {

    private static final String END = "\u0000end";

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> transcript = new ArrayList<>();
    private final Writer stdin;

    private ChildJvm(Process process) {
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread pump = new Thread(this::pump, "child-jvm-" + process.pid());
        pump.setDaemon(true);
        pump.start();
    }

    /**
     * Starts {@link LockWorker} with the database's connection settings, then the worker's own arguments. On a cluster
     * the worker connects to node 2, so that two processes contend through different nodes.
     */
    public static ChildJvm start(TestDatabase database, List<String> jvmOptions, String... workerArgs) {
        List<String> nodes = database.nodeJdbcUrls();
        return start(database, nodes.get(1 % nodes.size()), jvmOptions, workerArgs);
    }

    /** Starts {@link LockWorker} connected to the database through {@code jdbcUrl} (e.g. one node of a cluster). */
    public static ChildJvm start(TestDatabase database, String jdbcUrl, List<String> jvmOptions, String... workerArgs) {
        List<String> args = new ArrayList<>(List.of(jdbcUrl, database.username(), database.password()));
        args.addAll(List.of(workerArgs));
        return startMain(LockWorker.class, jvmOptions, args);
    }

    /** Starts {@code mainClass} of this test's classpath with the given arguments. */
    public static ChildJvm startMain(Class<?> mainClass, List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        try {
            return new ChildJvm(
                    new ProcessBuilder(command).redirectErrorStream(true).start());
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void pump() {
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lines.add(line);
            }
        } catch (IOException ex) {
            lines.add("pump failed: " + ex);
        } finally {
            lines.add(END);
        }
    }

    /**
     * Waits for the next line starting with {@code prefix}, skipping others.
     *
     * @return the line
     * @throws AssertionError if the worker exits or the timeout passes first
     */
    public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null || line.equals(END)) {
                if (line != null) {
                    lines.add(END);
                }
                throw new AssertionError("The child JVM " + (line == null ? "did not print" : "exited before printing")
                        + " a line starting with '" + prefix + "' within " + timeout + "; its output:\n"
                        + String.join("\n", transcript));
            }
            transcript.add(line);
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    /**
     * The next line the JVM printed, waiting up to {@code timeout}; {@code null} if none came, or the JVM's output
     * ended. Keeps only the last lines for failure messages, so a long run's output does not pile up.
     */
    public @Nullable String nextLine(Duration timeout) throws InterruptedException {
        String line = lines.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (line == null || line.equals(END)) {
            if (line != null) {
                lines.add(END);
                Thread.sleep(Math.min(timeout.toMillis(), 50)); // nothing more will come
            }
            return null;
        }
        transcript.add(line);
        if (transcript.size() > 200) {
            transcript.remove(0);
        }
        return line;
    }

    /** All lines starting with {@code prefix} until the worker's output ends. */
    List<String> linesUntilExit(String prefix, Duration timeout) throws InterruptedException {
        List<String> matching = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("The child JVM did not finish within " + timeout + "; its output:\n"
                        + String.join("\n", transcript));
            }
            if (line.equals(END)) {
                return matching;
            }
            if (line.startsWith(prefix)) {
                matching.add(line);
            } else {
                transcript.add(line);
            }
        }
    }

    public void send(String line) {
        try {
            stdin.write(line + "\n");
            stdin.flush();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Kills the JVM with SIGKILL (what {@link Process#destroyForcibly()} sends on Linux) and waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("The child JVM survived SIGKILL for 10 s");
        }
    }

    /**
     * Sends a signal to the JVM with {@code kill -SIGNAL pid}: {@code STOP} freezes it as a long GC pause or a frozen
     * VM would, {@code CONT} lets it run on, {@code TERM} asks it to shut down (its shutdown hooks run).
     */
    public void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .redirectErrorStream(true)
                .start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -" + signal + " " + process.pid() + " failed: "
                    + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public int waitForExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(
                    "The child JVM did not exit within " + timeout + "; its output:\n" + String.join("\n", transcript));
        }
        return process.exitValue();
    }

    public String transcript() {
        return String.join("\n", transcript);
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
