package io.github.bizlock.test;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A second JVM of a cross-process test, as the test sees it: started on the test's class path with a main class that
 * speaks through {@link ParentLink}, it takes commands on stdin and answers line by line on stdout. Every wait for an
 * answer is bounded: a child that does not answer in time, exits, or reports an {@code ERROR} fails the test with the
 * tail of its output instead of hanging it. The child's stderr (its logging and stack traces, and whatever else it
 * prints) is forwarded to this JVM's stderr, prefixed with the child's name. No child outlives the test JVM: {@link
 * #close()} kills it, a shutdown hook kills those still running, and a child whose input ends (its parent gone) exits.
 */
public final class ChildJvm implements AutoCloseable {

    private static final Duration KILL_BOUND = Duration.ofSeconds(10);
    private static final Set<Process> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> RUNNING.forEach(Process::destroyForcibly), "child-jvm-reaper"));
    }

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final ChildOutput output;

    private ChildJvm(Builder builder, Process process) {
        this.name = builder.name + "#" + process.pid();
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        RUNNING.add(process);
        process.onExit().thenRun(() -> RUNNING.remove(process));
        this.output = new ChildOutput(name, process, builder.events, builder.logs);
    }

    /** A child running {@code mainClass}, whose {@code main} hands its work to {@link ParentLink#run}. */
    public static Builder builder(Class<?> mainClass) {
        return new Builder(mainClass);
    }

    /** Sends one command line to the child. */
    public synchronized void send(String command) {
        try {
            stdin.write(command + "\n");
            stdin.flush();
        } catch (IOException ex) {
            throw failure("could not be sent '" + command + "' (" + ex.getMessage() + ")");
        }
    }

    /** Closes the child's input: its {@link ParentLink} sees the end of its commands, and the child exits. */
    public synchronized void closeInput() {
        try {
            stdin.close();
        } catch (IOException ex) {
            // the child is gone already
        }
    }

    /**
     * The child's next answer, waiting up to {@code timeout}.
     *
     * @throws AssertionError if no answer comes within {@code timeout}, the child's output ends first, or the answer
     *     is an {@code ERROR}
     */
    public String next(Duration timeout) throws InterruptedException {
        return next(timeout, "did not answer within " + timeout);
    }

    private String next(Duration timeout, String silence) throws InterruptedException {
        String line = output.poll(timeout);
        if (line == null) {
            throw failure(silence);
        }
        if (line.equals(ChildOutput.END)) {
            throw failure("exited before answering (" + exitStatus() + ")");
        }
        return checked(line);
    }

    /**
     * The child's next answer, which must start with the word {@code verb}, waiting up to {@code timeout}.
     *
     * @throws AssertionError as {@link #next} does, and if the answer is another one
     */
    public String await(String verb, Duration timeout) throws InterruptedException {
        String line = next(timeout);
        if (!ChildOutput.verb(line).equals(verb)) {
            throw failure("answered '" + line + "' where " + verb + " was expected");
        }
        return line;
    }

    /** The child's answers up to and including the first that starts with {@code verb}, all within {@code timeout}. */
    public List<String> until(String verb, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> lines = new ArrayList<>();
        while (lines.isEmpty() || !ChildOutput.verb(lines.get(lines.size() - 1)).equals(verb)) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            lines.add(next(
                    left, "did not answer " + verb + " within " + timeout + " (" + lines.size() + " answers before)"));
        }
        return lines;
    }

    /**
     * The child's next answer if one comes within {@code timeout}, or {@code null}: for tests that read a running
     * child's reports as they come and decide themselves how long is too long. Once the output has ended, waits up to
     * {@code timeout} for the child to exit and returns {@code null}.
     */
    public String poll(Duration timeout) throws InterruptedException {
        String line = output.poll(timeout);
        if (ChildOutput.END.equals(line)) {
            process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return null;
        }
        return line == null ? null : checked(line);
    }

    /** Kills the child with SIGKILL ({@link Process#destroyForcibly()} on Linux) and waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(KILL_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
            throw failure("survived SIGKILL for " + KILL_BOUND);
        }
    }

    /**
     * Sends a signal with {@code kill -SIGNAL pid}: {@code STOP} freezes the child as a long GC pause or a frozen VM
     * would (this returns once every thread of it has stopped), {@code CONT} lets it run on, {@code TERM} asks it to
     * shut down (its shutdown hooks run).
     */
    public void signal(String signal) throws IOException, InterruptedException {
        String failed = Signals.send(process.pid(), signal, KILL_BOUND);
        if (failed != null) {
            throw failure("could not be sent SIG" + signal + ": " + failed);
        }
    }

    /** The child's exit code, once it has exited within {@code timeout}; fails the test if it has not. */
    public int waitForExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw failure("did not exit within " + timeout);
        }
        return process.exitValue();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** The last lines the child wrote, its answers ({@code >}) and its stderr ({@code !}) in the order they came. */
    public String output() {
        return output.tail();
    }

    /** Kills the child at once. */
    @Override
    public void close() {
        close(Duration.ZERO);
    }

    /** Closes the child's input and gives it up to {@code grace} to exit on its own, then kills it. */
    public void close(Duration grace) {
        closeInput();
        try {
            if (!grace.isZero()) {
                process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
            }
            process.destroyForcibly();
            process.waitFor(KILL_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException ex) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private AssertionError failure(String what) {
        return new AssertionError("The child JVM " + name + " " + what + "; its last output:\n" + output());
    }

    /** An {@code ERROR} answer fails the test, with the stack trace the child printed before it exited. */
    private String checked(String line) throws InterruptedException {
        if (line.startsWith(ParentLink.ERROR + " ")) {
            output.awaitStderrEnd(KILL_BOUND);
            throw failure("failed: " + line);
        }
        return line;
    }

    /** How the child ended; its stderr is read to the end first, so that the message holds its last words. */
    private String exitStatus() throws InterruptedException {
        boolean exited = process.waitFor(KILL_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        output.awaitStderrEnd(KILL_BOUND);
        return exited ? "exit code " + process.exitValue() : "still running";
    }

    /** What to start: the main class, JVM options, system properties and arguments, and who hears events and logs. */
    public static final class Builder {

        private final Class<?> mainClass;
        private final List<String> jvmOptions = new ArrayList<>();
        private final List<String> args = new ArrayList<>();
        private final Map<String, Consumer<String>> events = new HashMap<>();
        private String name;
        private Consumer<String> logs = line -> {};

        private Builder(Class<?> mainClass) {
            this.mainClass = mainClass;
            this.name = mainClass.getSimpleName();
        }

        /** The name failure messages and forwarded output give the child ({@code #pid} is added). */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder jvmOptions(String... options) {
            jvmOptions.addAll(List.of(options));
            return this;
        }

        public Builder systemProperty(String key, String value) {
            jvmOptions.add("-D" + key + "=" + value);
            return this;
        }

        public Builder args(String... args) {
            return args(List.of(args));
        }

        public Builder args(List<String> args) {
            this.args.addAll(args);
            return this;
        }

        /**
         * Lines starting with the word {@code verb} are events the child reports whenever they happen: they go to
         * {@code handler} (on the thread reading the child's output) instead of being answers.
         */
        public Builder onEvent(String verb, Consumer<String> handler) {
            events.put(verb, handler);
            return this;
        }

        /** {@code handler} hears every line of the child's stderr (its logging), besides the forwarding. */
        public Builder onLog(Consumer<String> handler) {
            this.logs = handler;
            return this;
        }

        public ChildJvm start() {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-Xmx256m");
            // The JVM's own warnings go to stdout by default: keep stdout for the protocol alone.
            command.add("-XX:+DisplayVMOutputToStderr");
            command.add("-Xlog:disable");
            command.add("-Xlog:all=warning:stderr:uptime,level,tags");
            command.addAll(jvmOptions);
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(mainClass.getName());
            command.addAll(args);
            try {
                return new ChildJvm(this, new ProcessBuilder(command).start());
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
    }
}
