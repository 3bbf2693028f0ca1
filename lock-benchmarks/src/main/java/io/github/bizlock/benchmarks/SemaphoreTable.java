package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Numbers.number;
import static io.github.bizlock.benchmarks.Numbers.orNa;

import java.util.Locale;

/** The report's tables of S and S3, the semaphore scenarios of issue 33. */
final class SemaphoreTable {

    private SemaphoreTable() {}

    /** Appends the table of {@code scenario} (S or S3) under {@code title}, or nothing if it did not run. */
    static void write(StringBuilder out, Results results, String scenario, String title) {
        if (!results.has(scenario)) {
            return;
        }
        out.append("\n## ").append(title).append("\n\n");
        out.append("| subject | permits/s | most holders at once (worst run) | token errors | wait p50 ms"
                + " | wait p99 ms | wait max ms (worst run) | per thread acq/s min..max | spread | statements/acq"
                + " | fsyncs/acq |\n");
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (Subject subject : results.subjects(scenario)) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %.0f | %.0f | %s | %s | %s | %s | %s..%s | %s %% | %s | %s |%n",
                    subject.label(),
                    results.median(scenario, subject, "acq"),
                    results.max(scenario, subject, "mostInside"),
                    subject.kind() == Subject.Kind.REDIS ? "none" : number(results.sum(scenario, subject, "tokens"), 0),
                    number(results.median(scenario, subject, "w50"), 2),
                    number(results.median(scenario, subject, "w99"), 1),
                    number(results.max(scenario, subject, "wmax"), 1),
                    number(results.median(scenario, subject, "threadMin"), 0),
                    number(results.median(scenario, subject, "threadMax"), 0),
                    number(results.median(scenario, subject, "spread"), 0),
                    number(results.median(scenario, subject, "stmts"), 1),
                    orNa(results.median(scenario, subject, "fsyncs"), 2)));
        }
        out.append(String.format(
                Locale.ROOT,
                "%nEach thread takes a permit, holds it for %.0f µs and gives it back; the serial limit is %d × 1000"
                        + " permits/s. Most holders at once: an AtomicInteger counts the threads between having a"
                        + " permit and giving it back, and keeps the largest value it reached; above %d the semaphore"
                        + " let too many in. Token errors: a permit's fencing token not above the last one of its slot"
                        + " (bizlock; Redisson's permits have none). Wait: from asking to having a permit. Per thread:"
                        + " permits/s of each of the %d threads; spread = (max − min) / max. A wait counts when it ends in the"
                        + " measured seconds: a thread that waited throughout them (per thread min 0) adds none."
                        + " bizlock's waiters poll the"
                        + " free slots (docs/semaphore.md); Redisson's permits are taken with a fixed lease of %d s,"
                        + " since `RPermitExpirableSemaphore` has no watchdog.%n",
                Contended.CRITICAL_SECTION_NANOS / 1000.0,
                SemaphoreScenario.PERMITS,
                SemaphoreScenario.PERMITS,
                SemaphoreScenario.THREADS,
                Node.WAIT.toSeconds()));
    }
}
