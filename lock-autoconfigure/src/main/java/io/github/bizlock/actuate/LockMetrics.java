package io.github.bizlock.actuate;

import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockMode;
import io.github.bizlock.service.LockObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Records what a {@code LockService} does as Micrometer meters, all named {@code bizlock.*}:
 *
 * <ul>
 *   <li>{@code bizlock.acquire} (timer; tags {@code name}, {@code mode}, {@code outcome} = {@code acquired},
 *       {@code timed_out} or {@code failed}): acquisitions and how long they took;
 *   <li>{@code bizlock.wait} (timer with a percentile histogram; tags {@code name}, {@code mode}): time spent
 *       acquiring, whatever the outcome;
 *   <li>{@code bizlock.hold} (timer; tags {@code name}, {@code mode}): time from acquisition to release;
 *   <li>{@code bizlock.handoffs} (counter; tags {@code name}, {@code mode}): releases that passed the lock to a
 *       waiting thread of the same process without a round trip;
 *   <li>{@code bizlock.renewals} and {@code bizlock.renewal.failures} (counters; tag {@code mode}): leases renewed
 *       by the watchdog, and leases whose renewal statement failed;
 *   <li>{@code bizlock.lost} (counter; tags {@code name}, {@code mode}, {@code cause} = {@code lease_expired},
 *       {@code taken_over}, {@code removed}, {@code session_ended} or {@code unreachable}, see
 *       {@link io.github.bizlock.LossCause}): held locks that were lost, and why;
 *   <li>{@code bizlock.housekeeping.purged} (counter): lock rows deleted by housekeeping.
 * </ul>
 *
 * <p>The gauges {@code bizlock.held}, {@code bizlock.waiting} and {@code bizlock.renewals.overdue} come from
 * {@link LockGauges}. Every meter tagged by name also has a {@code primitive} tag: {@code permit} for a semaphore's
 * permits (each a slot lock of the semaphore's name; a waiting permit tries the slots one by one, so its
 * {@code bizlock.acquire} counts each slot tried, {@code timed_out} when it was taken), {@code lock} for every other lock,
 * a multi-key lock's keys included (they are plain locks of their name). Keys are never tags, since every order id would make a series of its own, except for the lock
 * names in the allow-list given here: then every meter tagged by name also has a {@code key} tag, which is the key
 * for those names and {@code -} for the others.
 */
public final class LockMetrics implements LockObserver {

    /** The value of the {@code key} tag for lock names outside the allow-list. */
    public static final String OTHER_KEY = "-";

    /** The {@code primitive} tag of a plain lock's meters (a multi-key lock's keys are plain locks too). */
    public static final String LOCK = "lock";

    /** The {@code primitive} tag of a semaphore's permits' meters. */
    public static final String PERMIT = "permit";

    private final MeterRegistry registry;
    private final Set<String> keyTagNames;
    /** The names this process learned are semaphores'; every other name is one of plain locks. */
    private final Set<String> semaphoreNames = ConcurrentHashMap.newKeySet();

    /**
     * @param registry where the meters go
     * @param keyTagNames lock names whose keys become a {@code key} tag (few, with few keys each); usually empty
     */
    public LockMetrics(MeterRegistry registry, Set<String> keyTagNames) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.keyTagNames = Set.copyOf(keyTagNames);
    }

    @Override
    public Acquisition acquisitionStarted(String name, String key, LockMode mode) {
        return (outcome, waitNanos) -> {
            // Tagged when it ends: a name's first acquisition learns what the name is (nameBound) on its way.
            Tags tags = tags(name, key, mode);
            Timer.builder("bizlock.acquire")
                    .description("Lock acquisitions, by outcome, and how long they took")
                    .tags(tags)
                    .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
                    .register(registry)
                    .record(waitNanos, TimeUnit.NANOSECONDS);
            Timer.builder("bizlock.wait")
                    .description("Time spent acquiring a lock, waiting included, whatever the outcome")
                    .tags(tags)
                    .publishPercentileHistogram()
                    .register(registry)
                    .record(waitNanos, TimeUnit.NANOSECONDS);
        };
    }

    @Override
    public void released(String name, String key, LockMode mode, long holdNanos) {
        Timer.builder("bizlock.hold")
                .description("Time locks were held, from acquisition to release")
                .tags(tags(name, key, mode))
                .register(registry)
                .record(holdNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void handedOver(String name, String key, LockMode mode) {
        count(
                "bizlock.handoffs",
                "Releases that passed the lock to a waiting thread of the same process, no round trip",
                tags(name, key, mode),
                1);
    }

    @Override
    public void renewed(LockMode mode, int count) {
        count(
                "bizlock.renewals",
                "Leases (or session heartbeats) the watchdog renewed",
                Tags.of("mode", mode(mode)),
                count);
    }

    @Override
    public void renewalFailed(LockMode mode, int count) {
        count(
                "bizlock.renewal.failures",
                "Leases whose renewal failed because the database did not answer; retried",
                Tags.of("mode", mode(mode)),
                count);
    }

    @Override
    public void lost(LockLostEvent event) {
        count(
                "bizlock.lost",
                "Held locks that were lost, by cause: the lease ended, was taken over or removed, or the session"
                        + " ended or could not be checked",
                tags(event.name(), event.key(), event.mode())
                        .and("cause", event.cause().name().toLowerCase(Locale.ROOT)),
                1);
    }

    @Override
    public void purged(int rows) {
        count("bizlock.housekeeping.purged", "Lock rows deleted by housekeeping", Tags.empty(), rows);
    }

    private void count(String name, String description, Tags tags, double amount) {
        Counter.builder(name)
                .description(description)
                .tags(tags)
                .register(registry)
                .increment(amount);
    }

    @Override
    public void nameBound(String name, LockMode mode, int permits) {
        if (permits > 0) {
            semaphoreNames.add(name);
        }
    }

    private Tags tags(String name, String key, LockMode mode) {
        Tags tags =
                Tags.of("name", name, "mode", mode(mode), "primitive", semaphoreNames.contains(name) ? PERMIT : LOCK);
        if (!keyTagNames.isEmpty()) {
            tags = tags.and("key", keyTagNames.contains(name) ? key : OTHER_KEY);
        }
        return tags;
    }

    static String mode(LockMode mode) {
        return mode.name().toLowerCase(Locale.ROOT);
    }
}
