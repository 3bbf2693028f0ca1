package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.HeldLocksScenario.HELD_LOCKS;
import static io.github.bizlock.benchmarks.Numbers.number;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's targets tables: issue 32's and issue 7's targets against this run's medians (wait maxima: the worst
 * run), each met or missed.
 */
final class Targets {

    /** C1's target for each mode, in acquisitions per second. */
    static final double C1_TARGET = 900;

    private final Results results;
    private final Map<String, Double> held;
    private final StringBuilder out;

    private Targets(Results results, Map<String, Double> held, StringBuilder out) {
        this.results = results;
        this.held = held;
        this.out = out;
    }

    /** Appends the rows of issue 32's targets to {@code out}. */
    static void writeIssue32(StringBuilder out, Results results) {
        Targets targets = new Targets(results, Map.of(), out);
        targets.severalClients32();
        targets.oneClient32();
        targets.single32();
        targets.kill();
    }

    /** Appends the rows of issue 7's targets to {@code out}. */
    static void write(StringBuilder out, Results results, Map<String, Double> held) {
        Targets targets = new Targets(results, held, out);
        targets.single();
        targets.distinctKeys();
        targets.oneClient();
        targets.severalClients();
        targets.safety();
        targets.heldLocks();
        targets.fairness();
    }

    private double median(String scenario, Subject subject, String metric) {
        return results.median(scenario, subject, metric);
    }

    /** C (8 clients): LEASE against its hand-off floor, fair across instances; ROW and NAMED at their token floors. */
    private void severalClients32() {
        ratio(
                "C: LEASE ≥ 0.9 × lease hand-off floor",
                median("C", Subjects.LEASE, "acq"),
                median("C", Subjects.FLOOR_LEASE_HANDOFF, "acq"),
                0.9,
                false);
        limit("C: LEASE same instance as the last holder ≤ 5 %", median("C", Subjects.LEASE, "sameOwner"), 5, true);
        limit("C: LEASE per-instance spread ≤ 10 %", median("C", Subjects.LEASE, "instSpread"), 10, true);
        waitMax("C", Subjects.LEASE);
        limit("C: LEASE ≤ 3 statements per acquisition", median("C", Subjects.LEASE, "stmts"), 3, true);
        ratio(
                "C: ROW (token every acquisition) ≥ 0.9 × FOR UPDATE + counter floor",
                median("C", Subjects.ROW, "acq"),
                median("C", Subjects.FLOOR_TOKEN_FOR_UPDATE, "acq"),
                0.9,
                false);
        ratio(
                "C: NAMED (token every acquisition) ≥ 0.9 × GET_LOCK + counter floor",
                median("C", Subjects.NAMED, "acq"),
                median("C", Subjects.FLOOR_TOKEN_GET_LOCK, "acq"),
                0.9,
                false);
    }

    /** C1, every mode at its defaults: as fast as GET_LOCK, fair between threads, no long waits. */
    private void oneClient32() {
        for (Subject mode : List.of(Subjects.LEASE, Subjects.ROW, Subjects.NAMED)) {
            waitMax("C1", mode);
            limit("C1: " + mode.label() + " per-thread spread ≤ 10 %", median("C1", mode, "spread"), 10, true);
            ratio(
                    "C1: " + mode.label() + " ≥ 0.9 × GET_LOCK floor",
                    median("C1", mode, "acq"),
                    median("C1", Subjects.FLOOR_GET_LOCK, "acq"),
                    0.9,
                    false);
        }
    }

    private void waitMax(String scenario, Subject subject) {
        ratio(
                scenario + ": " + subject.label() + " wait max ≤ 10 × GET_LOCK floor's (ms)",
                results.max(scenario, subject, "wmax"),
                results.max(scenario, Subjects.FLOOR_GET_LOCK, "wmax"),
                10,
                true);
    }

    /** A and B: LEASE at its INSERT+DELETE floor. */
    private void single32() {
        ratio(
                "A: LEASE p50 ≤ 1.1 × INSERT+DELETE floor",
                median("A", Subjects.LEASE, "p50"),
                median("A", Subjects.FLOOR_INSERT_DELETE, "p50"),
                1.1,
                true);
        ratio(
                "B: LEASE ≥ 0.9 × INSERT+DELETE floor",
                median("B", Subjects.LEASE, "ops"),
                median("B", Subjects.FLOOR_INSERT_DELETE, "ops"),
                0.9,
                false);
    }

    /** K: a holder killed -9 holds others up for its lease at most, and nobody overlaps a live holder. */
    private void kill() {
        Subject subject = Subjects.LEASE_KILL;
        limit(
                "K: longest wait after killing the holder ≤ lease + " + KillScenario.EPSILON.toMillis() + " ms ("
                        + (KillScenario.LEASE.toMillis() + KillScenario.EPSILON.toMillis()) + " ms)",
                results.max("K", subject, "longestAfterKill"),
                KillScenario.LEASE.toMillis() + KillScenario.EPSILON.toMillis(),
                true);
        limit("K: overlaps (sum) = 0", results.sum("K", subject, "overlaps"), 0, true);
        limit("K: tokens not increasing (sum) = 0", results.sum("K", subject, "tokens"), 0, true);
    }

    private void single() {
        double namedA = median("A", Subjects.NAMED, "p50");
        double getLockA = median("A", Subjects.FLOOR_GET_LOCK, "p50");
        double redissonA = median("A", Subjects.REDISSON, "p50");
        double leaseA = median("A", Subjects.LEASE, "p50");
        double insertA = median("A", Subjects.FLOOR_INSERT_DELETE, "p50");
        ratio("A: NAMED p50 ≤ 1.2 × GET_LOCK floor", namedA, getLockA, 1.2, true);
        ratio("A: NAMED p50 ≤ 0.5 × Redisson", namedA, redissonA, 0.5, true);
        ratio("A: LEASE p50 ≤ 1.1 × INSERT+DELETE floor", leaseA, insertA, 1.1, true);
        limit("A: LEASE ≤ 2 statements besides tx control", median("A", Subjects.LEASE, "stmtsNoTx"), 2, true);
    }

    private void distinctKeys() {
        record FloorOf(Subject mode, Subject floor, String floorName) {}
        for (FloorOf pair : List.of(
                new FloorOf(Subjects.LEASE, Subjects.FLOOR_INSERT_DELETE, "INSERT+DELETE"),
                new FloorOf(Subjects.ROW, Subjects.FLOOR_FOR_UPDATE, "FOR UPDATE"),
                new FloorOf(Subjects.NAMED, Subjects.FLOOR_GET_LOCK, "GET_LOCK"))) {
            ratio(
                    "B: " + pair.mode().label() + " ≥ 0.9 × " + pair.floorName() + " floor",
                    median("B", pair.mode(), "ops"),
                    median("B", pair.floor(), "ops"),
                    0.9,
                    false);
        }
    }

    private void oneClient() {
        for (Subject mode : List.of(Subjects.LEASE, Subjects.ROW, Subjects.NAMED)) {
            limit("C1: " + mode.label() + " ≥ 900 acquisitions/s", median("C1", mode, "acq"), C1_TARGET, false);
            double serial = median("C1", mode, "serial");
            ratio(
                    "C1: " + mode.label() + " ≥ 0.9 × its measured serial limit (the 900/s target is "
                            + number(100 * C1_TARGET / serial, 0) + " % of that limit)",
                    median("C1", mode, "acq"),
                    serial,
                    0.9,
                    false);
            limit("C1: " + mode.label() + " hand-off p50 ≤ 100 µs", median("C1", mode, "p50"), 100, true);
        }
    }

    private void severalClients() {
        for (String scenario : List.of("C", "C3")) {
            String name = scenario.equals("C") ? "C (8 clients)" : "C (3 JVMs)";
            ratio(
                    name + ": LEASE ≥ 1.5 × Spring Integration",
                    median(scenario, Subjects.LEASE, "acq"),
                    median(scenario, Subjects.SPRING_INTEGRATION, "acq"),
                    1.5,
                    false);
            limit(name + ": LEASE ≤ 4 statements per acquisition", median(scenario, Subjects.LEASE, "stmts"), 4, true);
            for (Subject mode : List.of(Subjects.ROW, Subjects.NAMED)) {
                ratio(
                        name + ": " + mode.label() + " ≥ 0.95 × GET_LOCK floor",
                        median(scenario, mode, "acq"),
                        median(scenario, Subjects.FLOOR_GET_LOCK, "acq"),
                        0.95,
                        false);
            }
        }
    }

    /** D: summed over every contended run. */
    private void safety() {
        double overlaps = 0;
        double tokens = 0;
        for (String scenario : List.of("C1", "C", "C3", "K")) {
            for (Subject subject : results.subjects(scenario)) {
                overlaps += results.sum(scenario, subject, "overlaps");
                tokens += results.sum(scenario, subject, "tokens");
            }
        }
        limit("D: overlaps in every C1/C/K run, every subject (sum) = 0", overlaps, 0, true);
        limit("D: bizlock tokens not increasing (sum) = 0", tokens, 0, true);
    }

    private void heldLocks() {
        limit(
                "E: threads added for " + HELD_LOCKS + " held locks (no thread per lock)",
                held.get("threadsAdded"),
                8,
                true);
        limit("E: heap per held lock ≤ 1024 bytes", held.get("heapPerLock"), 1024, true);
        limit("E: held locks lost = 0", held.get("lost"), 0, true);
        limit("E: ≥ 50 locks per renewal statement", held.get("locksPerRenewUpdate"), 50, false);
    }

    /** Fair is the default since issue 32: its C1 spreads are among issue 32's targets, C's are here. */
    private void fairness() {
        for (Subject mode : List.of(Subjects.ROW, Subjects.NAMED)) {
            limit("C: " + mode.label() + " per-instance spread ≤ 10 %", median("C", mode, "instSpread"), 10, true);
        }
    }

    private void ratio(String target, double value, double base, double bound, boolean atMost) {
        double ratio = value / base;
        boolean met = atMost ? ratio <= bound : ratio >= bound;
        out.append(String.format(
                Locale.ROOT,
                "| %s | %s / %s = **%.2f ×** | %s |%n",
                target,
                number(value, value < 10 ? 1 : 0),
                number(base, base < 10 ? 1 : 0),
                ratio,
                Double.isNaN(ratio) ? "n/a" : met ? "met" : "**missed**"));
    }

    private void limit(String target, double value, double bound, boolean atMost) {
        boolean met = atMost ? value <= bound : value >= bound;
        out.append(String.format(
                Locale.ROOT,
                "| %s | %s | %s |%n",
                target,
                number(value, value < 10 ? 1 : 0),
                Double.isNaN(value) ? "n/a" : met ? "met" : "**missed**"));
    }
}
