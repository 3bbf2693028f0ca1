package io.github.bizlock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What a {@link ChildJvm} writes, read as it comes: its answers queued for the test, its events handed to their
 * handlers, its stderr forwarded to this JVM's, and the last lines of both kept for failure messages.
 */
final class ChildOutput {

    /** What {@link #poll} returns, again and again, once the child's stdout has ended. */
    static final String END = "\u0000end";

    private static final int TAIL_LINES = 200;

    private final String name;
    private final Map<String, Consumer<String>> events;
    private final Consumer<String> logs;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final Deque<String> tail = new ArrayDeque<>();
    private final CountDownLatch stderrEnded = new CountDownLatch(1);

    ChildOutput(String name, Process process, Map<String, Consumer<String>> events, Consumer<String> logs) {
        this.name = name;
        this.events = Map.copyOf(events);
        this.logs = logs;
        daemon("child-jvm-out-" + process.pid(), () -> {
            pump(process.getInputStream(), this::answer);
            answers.add(END);
        });
        daemon("child-jvm-err-" + process.pid(), () -> {
            pump(process.getErrorStream(), this::log);
            stderrEnded.countDown();
        });
    }

    /** The next answer, {@code null} if none came within {@code timeout}, or {@link #END}. */
    String poll(Duration timeout) throws InterruptedException {
        String line = answers.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (END.equals(line)) {
            answers.add(END);
        }
        return line;
    }

    /** Waits up to {@code bound} for the child's stderr to end, so that a failure message holds its last words. */
    void awaitStderrEnd(Duration bound) throws InterruptedException {
        stderrEnded.await(bound.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The last lines, answers ({@code >}) and stderr ({@code !}) in the order they came. */
    String tail() {
        synchronized (tail) {
            return String.join("\n", tail);
        }
    }

    static String verb(String line) {
        int space = line.indexOf(' ');
        return space < 0 ? line : line.substring(0, space);
    }

    private void answer(String line) {
        remember("> " + line);
        Consumer<String> event = events.get(verb(line));
        if (event != null) {
            event.accept(line);
        } else {
            answers.add(line);
        }
    }

    private void log(String line) {
        remember("! " + line);
        System.err.println("[" + name + "] " + line);
        logs.accept(line);
    }

    private void remember(String line) {
        synchronized (tail) {
            tail.addLast(line);
            if (tail.size() > TAIL_LINES) {
                tail.removeFirst();
            }
        }
    }

    private void pump(InputStream stream, Consumer<String> sink) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                sink.accept(line);
            }
        } catch (IOException | RuntimeException ex) {
            remember("(reading the child's output failed: " + ex + ")");
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
    }
}
