package io.github.bizlock.faults;

import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.FreezingProxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FaultHolder} JVM as the test sees it: the locks it holds (one per mode), the losses it reported (events,
 * with the wall-clock time it learned them), and its answers to commands. Its connections go through a {@link
 * FreezingProxy} of its own, so the test can cut them without touching anyone else's.
 */
final class HolderJvm implements AutoCloseable {

    /** A loss the holder reported: why, and when it learned it (epoch ms, this machine's clock). */
    record Loss(LossCause cause, long atMillis) {}

    /** The answer to each command, one line per mode. */
    private static final Map<String, String> ANSWERS =
            Map.of("TRY", "TRIED", "UNLOCK", "UNLOCKED", "WRITE", "WROTE", "HELD", "HELD?");

    private final FreezingProxy proxy;
    private final Map<LockMode, Long> tokens = new EnumMap<>(LockMode.class);
    private final Map<LockMode, Loss> losses = new ConcurrentHashMap<>();
    private final Map<LockMode, Long> notHeld = new ConcurrentHashMap<>();
    private final ChildJvm jvm;

    private HolderJvm(FreezingProxy proxy, String user, String password, Duration lease, String prefix) {
        this.proxy = proxy;
        this.jvm = ChildJvm.builder(FaultHolder.class)
                .name("fault-holder-" + prefix)
                .args(proxy.jdbcUrl(), user, password, Long.toString(lease.toMillis()), prefix)
                .onEvent("LOST", line -> {
                    String[] parts = line.split(" ");
                    losses.putIfAbsent(
                            LockMode.valueOf(parts[1]),
                            new Loss(LossCause.valueOf(parts[2]), Long.parseLong(parts[3])));
                })
                .onEvent("NOTHELD", line -> {
                    String[] parts = line.split(" ");
                    notHeld.putIfAbsent(LockMode.valueOf(parts[1]), Long.parseLong(parts[2]));
                })
                .start();
    }

    /** Starts a holder of {@code prefix-MODE}/{@code k} in every mode, connected to {@code jdbcUrl} through a proxy. */
    static HolderJvm start(String jdbcUrl, String user, String password, Duration lease, String prefix)
            throws Exception {
        FreezingProxy proxy = new FreezingProxy(jdbcUrl, FaultSoakTest.FIRST_PORT, FaultSoakTest.LAST_PORT);
        HolderJvm holder = new HolderJvm(proxy, user, password, lease, prefix);
        try {
            for (int i = 0; i < LockMode.values().length; i++) {
                String[] holding =
                        holder.jvm.await("HOLDING", Duration.ofSeconds(60)).split(" ");
                holder.tokens.put(LockMode.valueOf(holding[1]), Long.parseLong(holding[2]));
            }
            holder.jvm.await("READY", Duration.ofSeconds(30));
            return holder;
        } catch (AssertionError | InterruptedException ex) {
            holder.close();
            throw ex;
        }
    }

    long token(LockMode mode) {
        return tokens.get(mode);
    }

    FreezingProxy proxy() {
        return proxy;
    }

    ChildJvm jvm() {
        return jvm;
    }

    /** The loss the holder reported for {@code mode}, waiting up to {@code timeout}; {@code null} if none. */
    @Nullable
    Loss awaitLoss(LockMode mode, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!losses.containsKey(mode) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return losses.get(mode);
    }

    /** When the holder's {@code isHeld()} turned false for {@code mode} (epoch ms), or -1 if it has not (yet). */
    long notHeldAt(LockMode mode) {
        return notHeld.getOrDefault(mode, -1L);
    }

    @Nullable
    Loss loss(LockMode mode) {
        return losses.get(mode);
    }

    /** Sends a command and returns its answer for each mode ({@code mode -> rest of the line}). */
    Map<LockMode, String[]> command(String command, Duration timeout) throws InterruptedException {
        jvm.send(command);
        Map<LockMode, String[]> answers = new EnumMap<>(LockMode.class);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (answers.size() < LockMode.values().length) {
            String line = jvm.await(ANSWERS.get(command), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            String[] parts = line.split(" ");
            answers.put(LockMode.valueOf(parts[1]), Arrays.copyOfRange(parts, 2, parts.length));
        }
        return answers;
    }

    String output() {
        return jvm.output();
    }

    @Override
    public void close() throws Exception {
        jvm.close();
        proxy.close();
    }
}
