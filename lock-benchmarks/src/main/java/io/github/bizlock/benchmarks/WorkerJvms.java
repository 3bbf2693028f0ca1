package io.github.bizlock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The child JVMs of a multi-process contended run, each a {@link Contended#main} (or S's
 * {@link PermitContenders#main}) with its share of the threads; their
 * stderr goes to ours, their stdout is kept for the {@code RESULT} line.
 */
final class WorkerJvms {

    private final List<Process> processes = new ArrayList<>();
    private final List<StringBuilder> outputs = new ArrayList<>();
    private final List<Thread> readers = new ArrayList<>();
    private final List<Integer> killed = new ArrayList<>();

    /** Starts {@code jvms} JVMs that share {@code threads} threads of {@code subject} as evenly as they can. */
    static WorkerJvms start(Subject subject, Env env, Shared shared, int jvms, int threads) throws IOException {
        return start(Contended.class, subject, env, shared, jvms, threads);
    }

    /**
     * As above, each JVM running {@code main}'s {@code main} with the arguments {@link Contended#main} takes, and
     * writing a {@link ContendedPart} line.
     */
    static WorkerJvms start(Class<?> main, Subject subject, Env env, Shared shared, int jvms, int threads)
            throws IOException {
        WorkerJvms workers = new WorkerJvms();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int j = 0; j < jvms; j++) {
            int share = threads / jvms + (j < threads % jvms ? 1 : 0);
            List<String> command = new ArrayList<>(List.of(
                    java,
                    "-Xmx256m",
                    "-XX:TieredStopAtLevel=4",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    "-cp",
                    System.getProperty("java.class.path"),
                    main.getName(),
                    subject.id(),
                    Integer.toString(share),
                    Integer.toString(j),
                    shared.file().toString()));
            command.addAll(env.toArgs());
            workers.add(new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start());
        }
        return workers;
    }

    private void add(Process process) {
        processes.add(process);
        StringBuilder output = new StringBuilder();
        outputs.add(output);
        Thread reader = new Thread(() -> {
            try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                }
            } catch (Exception ignored) {
                // the process ended
            }
        });
        reader.start();
        readers.add(reader);
    }

    /** Whether a worker has ended (before the run has), other than one {@link #kill killed}. */
    boolean anyEnded() {
        for (int j = 0; j < processes.size(); j++) {
            if (!processes.get(j).isAlive() && !killed.contains(j)) {
                return true;
            }
        }
        return false;
    }

    void destroy() {
        processes.forEach(Process::destroy);
    }

    /** Kills worker {@code index} with SIGKILL ({@link Process#destroyForcibly} on Linux) and waits until it is gone. */
    void kill(int index) throws InterruptedException {
        Process process = processes.get(index);
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("worker JVM " + process.pid() + " did not die of SIGKILL");
        }
        killed.add(index);
    }

    /**
     * Waits for every worker to end (after {@link Shared#STOPPING}) and reads its part; a killed worker has none.
     *
     * @param run the scenario and subject, for the messages of a worker that failed
     */
    List<ContendedPart> finish(String run) throws Exception {
        List<ContendedPart> parts = new ArrayList<>();
        for (int j = 0; j < processes.size(); j++) {
            if (killed.contains(j)) {
                continue;
            }
            Process process = processes.get(j);
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(run + ": a worker JVM did not stop");
            }
            readers.get(j).join();
            String output;
            synchronized (outputs.get(j)) {
                output = outputs.get(j).toString();
            }
            String line = output.lines()
                    .filter(l -> l.startsWith("RESULT "))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(
                            run + ": a worker JVM failed (exit " + process.exitValue() + ")"));
            parts.add(ContendedPart.decode(line));
        }
        return parts;
    }
}
