package io.github.bizlock.benchmarks;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/**
 * Every raw wait of the contended scenarios (calling lock until having it), by scenario, subject, run, instance and
 * thread, with each thread's acquisitions per second: the CSV beside the report, and what the charts are drawn from.
 */
final class WaitSamples {

    /** One thread's waits in one run of one scenario and subject. */
    record ThreadWaits(
            String scenario, Subject subject, int run, int instance, int thread, long[] waits, double rate) {}

    private final List<ThreadWaits> threads = new ArrayList<>();
    private int run = 1;

    /** The run the following samples belong to (1-based). */
    void startRun(int run) {
        this.run = run;
    }

    void add(String scenario, Subject subject, int instance, int thread, long[] waits, double rate) {
        threads.add(new ThreadWaits(scenario, subject, run, instance, thread, waits, rate));
    }

    /** The subjects with samples in {@code scenario}, in the order they ran. */
    List<Subject> subjects(String scenario) {
        LinkedHashSet<Subject> subjects = new LinkedHashSet<>();
        threads.stream().filter(t -> t.scenario.equals(scenario)).forEach(t -> subjects.add(t.subject));
        return new ArrayList<>(subjects);
    }

    /** Every wait of {@code subject} in {@code scenario} over all runs, sorted, in nanoseconds. */
    long[] sorted(String scenario, Subject subject) {
        long[] all = threads.stream()
                .filter(t -> t.scenario.equals(scenario) && t.subject.equals(subject))
                .flatMapToLong(t -> Arrays.stream(t.waits))
                .toArray();
        Arrays.sort(all);
        return all;
    }

    /** The acquisitions per second of each thread of {@code subject} in {@code scenario}, every run. */
    List<Double> rates(String scenario, Subject subject) {
        return threads.stream()
                .filter(t -> t.scenario.equals(scenario) && t.subject.equals(subject))
                .map(ThreadWaits::rate)
                .toList();
    }

    /** The value at {@code percentile} (0 to 100) of sorted samples, nearest rank; 0 when there are none. */
    static long percentile(long[] sorted, double percentile) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(percentile / 100 * sorted.length);
        return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
    }

    /** One row per acquisition: {@code scenario,subject,run,instance,thread,wait_us}. */
    void writeCsv(Path file) throws IOException {
        try (BufferedWriter out = Files.newBufferedWriter(file)) {
            out.write("scenario,subject,run,instance,thread,wait_us\n");
            for (ThreadWaits t : threads) {
                String prefix = String.format(
                        Locale.ROOT, "%s,%s,%d,%d,%d,", t.scenario, t.subject.id(), t.run, t.instance, t.thread);
                for (long wait : t.waits) {
                    out.write(prefix);
                    out.write(Long.toString(Math.round(wait / 1000.0)));
                    out.write('\n');
                }
            }
        }
    }
}
