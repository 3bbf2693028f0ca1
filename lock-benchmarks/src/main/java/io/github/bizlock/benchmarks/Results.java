package io.github.bizlock.benchmarks;

import io.github.bizlock.benchmarks.Subject.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Every value measured, by scenario, subject and metric, one per run; the report reads their medians and sums. */
final class Results {

    /** scenario -> subject -> metric -> one value per run, in the order first measured. */
    private final Map<String, Map<Subject, Map<String, List<Double>>>> values = new LinkedHashMap<>();

    private final WaitSamples waits = new WaitSamples();

    /** The raw waits of the contended scenarios, for the CSV and the charts. */
    WaitSamples waits() {
        return waits;
    }

    void record(String scenario, Subject subject, String metric, double value) {
        values.computeIfAbsent(scenario, s -> new LinkedHashMap<>())
                .computeIfAbsent(subject, s -> new LinkedHashMap<>())
                .computeIfAbsent(metric, m -> new ArrayList<>())
                .add(value);
    }

    /**
     * Statements per operation ({@code stmts}), and for a database subject also without transaction control
     * ({@code stmtsNoTx}), InnoDB fsyncs ({@code fsyncs}), redo bytes ({@code redo}) and binary log syncs
     * ({@code binlog}) per operation, the last two NaN where the server does not count them.
     */
    void recordStatements(String scenario, Subject subject, Counters used, long operations) {
        if (operations == 0) {
            return;
        }
        if (subject.kind() == Kind.REDIS) {
            record(scenario, subject, "stmts", used.redis() / (double) operations);
            return;
        }
        record(scenario, subject, "stmts", used.database().questions() / (double) operations);
        record(
                scenario,
                subject,
                "stmtsNoTx",
                (used.database().questions() - used.database().transactionControl()) / (double) operations);
        record(scenario, subject, "fsyncs", used.database().fsyncs() / (double) operations);
        record(scenario, subject, "redo", perOperation(used.database().redoBytes(), operations));
        record(scenario, subject, "binlog", perOperation(used.database().binlogSyncs(), operations));
    }

    private static double perOperation(long counted, long operations) {
        return counted < 0 ? Double.NaN : counted / (double) operations;
    }

    boolean has(String scenario) {
        return values.containsKey(scenario);
    }

    /** The subjects measured in {@code scenario}, in the order they ran. */
    List<Subject> subjects(String scenario) {
        return new ArrayList<>(values.getOrDefault(scenario, Map.of()).keySet());
    }

    /** The median over runs, or NaN if not measured. */
    double median(String scenario, Subject subject, String metric) {
        List<Double> measured = values.getOrDefault(scenario, Map.of())
                .getOrDefault(subject, Map.of())
                .get(metric);
        if (measured == null || measured.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted =
                measured.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /** The largest value over runs, or NaN if not measured. */
    double max(String scenario, Subject subject, String metric) {
        return values
                .getOrDefault(scenario, Map.of())
                .getOrDefault(subject, Map.of())
                .getOrDefault(metric, List.of())
                .stream()
                .mapToDouble(Double::doubleValue)
                .max()
                .orElse(Double.NaN);
    }

    double sum(String scenario, Subject subject, String metric) {
        return values
                .getOrDefault(scenario, Map.of())
                .getOrDefault(subject, Map.of())
                .getOrDefault(metric, List.of())
                .stream()
                .mapToDouble(Double::doubleValue)
                .sum();
    }

    /** The smallest and largest median of {@code metric} among the subjects of {@code scenario}. */
    double[] range(String scenario, String metric) {
        double[] medians = subjects(scenario).stream()
                .mapToDouble(subject -> median(scenario, subject, metric))
                .filter(value -> !Double.isNaN(value))
                .toArray();
        return new double[] {
            Arrays.stream(medians).min().orElse(Double.NaN),
            Arrays.stream(medians).max().orElse(Double.NaN)
        };
    }
}
