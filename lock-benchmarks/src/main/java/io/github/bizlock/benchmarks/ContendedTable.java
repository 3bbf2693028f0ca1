package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Numbers.number;
import static io.github.bizlock.benchmarks.Numbers.orNa;
import static io.github.bizlock.benchmarks.Numbers.span;
import static io.github.bizlock.benchmarks.Numbers.tokenRead;

import java.util.Locale;

/** The report's table of one contended scenario (C1, C or C3), with the note on its critical section. */
final class ContendedTable {

    private ContendedTable() {}

    /** Appends the table of {@code scenario} under {@code title}, or nothing if it did not run. */
    static void write(StringBuilder out, Results results, String scenario, String title) {
        if (!results.has(scenario)) {
            return;
        }
        out.append("\n## ").append(title).append("\n\n");
        out.append("| subject | acquisitions/s | critical section µs | serial limit /s | hand-off p50 µs"
                + " | hand-off p99 µs | statements/acq | per thread min..max | spread | overlaps (D) | token errors"
                + " | fencing token |\n");
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        for (Subject subject : results.subjects(scenario)) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %.0f..%.0f | %.0f %% | %.0f | %.0f | %s |%n",
                    subject.label(),
                    results.median(scenario, subject, "acq"),
                    results.median(scenario, subject, "cs"),
                    results.median(scenario, subject, "serial"),
                    results.median(scenario, subject, "p50"),
                    results.median(scenario, subject, "p99"),
                    number(results.median(scenario, subject, "stmts"), 1),
                    results.median(scenario, subject, "min"),
                    results.median(scenario, subject, "max"),
                    results.median(scenario, subject, "spread"),
                    results.sum(scenario, subject, "overlaps"),
                    results.sum(scenario, subject, "tokens"),
                    tokenRead(subject, true)));
        }
        double[] criticalSection = results.range(scenario, "cs");
        double[] serial = results.range(scenario, "serial");
        out.append(String.format(
                Locale.ROOT,
                "%nCritical section: each holder keeps the lock until %.0f µs have passed since it acquired it (it parks,"
                        + " then spins for the last 200 µs, since `parkNanos` alone overshoots by tens of µs);"
                        + " \"critical section\" is the mean time it actually held it, acquisition to release (the"
                        + " token read happens inside that time), here %s µs. \"serial limit\" = 1 s /"
                        + " that mean, the most acquisitions/s any lock could reach on this machine even with no"
                        + " hand-off time at all: here %s /s.",
                Contended.CRITICAL_SECTION_NANOS / 1000.0,
                span(criticalSection, 0),
                span(serial, 0)));
        if (scenario.equals("C1")) {
            out.append(String.format(
                    Locale.ROOT,
                    " The issue's target of %.0f acquisitions/s (\"90 %% of the serial limit\", taking the limit as a"
                            + " nominal 1000/s) is %s %% of these measured limits.",
                    Targets.C1_TARGET,
                    span(new double[] {100 * Targets.C1_TARGET / serial[1], 100 * Targets.C1_TARGET / serial[0]}, 0)));
        }
        out.append(" Fencing token: every acquisition asks for it, for the D check (tokens must increase), so bizlock"
                + " ROW and NAMED pay for a token on every acquisition (LEASE's is free); \"none\": the implementation"
                + " has no fencing token.\n");
        waits(out, results, scenario);
    }

    /** The second table of a contended scenario: waits, who got the lock, and the server's work per acquisition. */
    static void waits(StringBuilder out, Results results, String scenario) {
        boolean perThread = scenario.equals("C1");
        String owner = perThread ? "thread" : "instance";
        out.append("\n| subject | wait p50 ms | wait p99 ms | wait p99.9 ms | wait max ms (worst run) | same "
                + owner + " % | per " + owner + " acq/s min..max | spread | fsyncs/acq | redo bytes/acq"
                + " | binlog syncs/acq |\n");
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (Subject subject : results.subjects(scenario)) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s | %s | %s..%s | %s %% | %s | %s | %s |%n",
                    subject.label(),
                    number(results.median(scenario, subject, "w50"), 2),
                    number(results.median(scenario, subject, "w99"), 1),
                    number(results.median(scenario, subject, "w999"), 1),
                    number(results.max(scenario, subject, "wmax"), 1),
                    number(results.median(scenario, subject, "sameOwner"), 1),
                    number(results.median(scenario, subject, perThread ? "threadMin" : "instMin"), 0),
                    number(results.median(scenario, subject, perThread ? "threadMax" : "instMax"), 0),
                    number(results.median(scenario, subject, perThread ? "spread" : "instSpread"), 0),
                    orNa(results.median(scenario, subject, "fsyncs"), 2),
                    orNa(results.median(scenario, subject, "redo"), 0),
                    orNa(results.median(scenario, subject, "binlog"), 2)));
        }
        out.append("\nWait: from calling lock to having it, every acquisition of the measured seconds (raw samples in"
                + " the CSV). Same " + owner + ": the share of acquisitions whose previous holder was the same "
                + owner + (scenario.equals("C3") ? " (JVM; hand-offs inside a JVM count)" : "") + ". Per " + owner
                + ": acquisitions per second of each " + owner
                + (scenario.equals("C3") ? ", divided by its threads (3, 3, 2)" : "")
                + "; spread = (max − min) / max. fsyncs, redo and binlog syncs: the server's counters over the"
                + " measured seconds / acquisitions (the server's background work included).\n");
    }
}
