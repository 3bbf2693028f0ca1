package io.github.bizlock.benchmarks;

import static io.github.bizlock.benchmarks.Numbers.number;

import java.util.Locale;

/** The report's section on K: a holder killed with SIGKILL during C with 3 JVMs. */
final class KillTable {

    private KillTable() {}

    static void write(StringBuilder out, Results results) {
        if (!results.has("K")) {
            return;
        }
        out.append("\n## K: the holding JVM killed -9 during C (3 JVMs, 3 + 3 + 2 threads, one key)\n\n");
        out.append("| subject | lease ms | runs with a kill | killed inside its critical section | first acquisition"
                + " after the kill ms (worst run) | longest wait after the kill ms (worst run) | longest wait ms,"
                + " all (worst run) | acquisitions/s | overlaps (D) | token errors |\n");
        out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for (Subject subject : results.subjects("K")) {
            out.append(String.format(
                    Locale.ROOT,
                    "| %s | %.0f | %.0f | %.0f | %s | %s | %s | %.0f | %.0f | %.0f |%n",
                    subject.label(),
                    results.median("K", subject, "lease"),
                    results.sum("K", subject, "killed"),
                    results.sum("K", subject, "diedInside"),
                    number(results.max("K", subject, "unavailable"), 0),
                    number(results.max("K", subject, "longestAfterKill"), 0),
                    number(results.max("K", subject, "wmax"), 0),
                    results.median("K", subject, "acq"),
                    results.sum("K", subject, "overlaps"),
                    results.sum("K", subject, "tokens")));
        }
        out.append(String.format(
                Locale.ROOT,
                "%nThe benchmark otherwise keeps bizlock's defaults; here alone the lease is set short through the"
                        + " builder (`watchdogLease(%d ms)`, renewed every third of it), so that the dead holder's"
                        + " lock frees within seconds. After C's warm-up and measured seconds, the worker JVM with a thread inside the"
                        + " critical section gets SIGKILL; the survivors go on for the lease + 2 s. The lock cannot"
                        + " pass before the dead holder's lease ends: the first acquisition after the kill should come"
                        + " at most a lease after it, and no waiter should wait longer after the kill than the lease"
                        + " + %d ms (a waiter's poll, and a loaded machine): \"longest wait after the kill\" counts from"
                        + " the kill (or the request, if later); \"all\" is whole waits, so a waiter queued before the"
                        + " kill adds what it had waited then. Acquisitions/s counts the survivors over the whole"
                        + " window, the lease included.%n",
                KillScenario.LEASE.toMillis(),
                KillScenario.EPSILON.toMillis()));
    }
}
