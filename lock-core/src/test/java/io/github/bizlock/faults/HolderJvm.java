package io.github.bizlock.faults;

import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.contract.ChildJvm;
import io.github.bizlock.test.FreezingProxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FaultHolder} JVM as the test sees it: the locks it holds (one per mode), the losses it reported with the
 * wall-clock time it learned them, and its answers to commands. Its connections go through a {@link FreezingProxy} of
 * its own, so the test can cut them without touching anyone else's.
 */
final class HolderJvm implements AutoCloseable {

    /** A loss the holder reported: why, and when it learned it (epoch ms, this machine's clock). */
    record Loss(LossCause cause, long atMillis) {}

    private final FreezingProxy proxy;
    private final ChildJvm jvm;
    private final Map<LockMode, Long> tokens = new EnumMap<>(LockMode.class);
    private final Map<LockMode, Loss> losses = new ConcurrentHashMap<>();
    private final Map<LockMode, Long> notHeld = new ConcurrentHashMap<>();
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private final List<String> output = new ArrayList<>();
    private final Thread reader;

    private HolderJvm(FreezingProxy proxy, ChildJvm jvm) {
        this.proxy = proxy;
        this.jvm = jvm;
        this.reader = new Thread(this::read, "holder-jvm-reader");
        reader.setDaemon(true);
    }

    /** Starts a holder of {@code prefix-MODE}/{@code k} in every mode, connected to {@code jdbcUrl} through a proxy. */
    static HolderJvm start(String jdbcUrl, String user, String password, Duration lease, String prefix)
            throws Exception {
        FreezingProxy proxy = new FreezingProxy(jdbcUrl, FaultSoakTest.FIRST_PORT, FaultSoakTest.LAST_PORT);
        ChildJvm jvm = ChildJvm.startMain(
                FaultHolder.class,
                List.of(),
                List.of(proxy.jdbcUrl(), user, password, Long.toString(lease.toMillis()), prefix));
        HolderJvm holder = new HolderJvm(proxy, jvm);
        for (int i = 0; i < LockMode.values().length; i++) {
            String[] holding = jvm.awaitLine("HOLDING ", Duration.ofSeconds(60)).split(" ");
            holder.tokens.put(LockMode.valueOf(holding[1]), Long.parseLong(holding[2]));
        }
        jvm.awaitLine("READY", Duration.ofSeconds(30));
        holder.reader.start();
        return holder;
    }

    private void read() {
        try {
            while (true) {
                String line = jvm.nextLine(Duration.ofMillis(100));
                if (line == null) {
                    if (!jvm.isAlive()) {
                        return;
                    }
                    continue;
                }
                synchronized (output) {
                    output.add(line);
                }
                String[] parts = line.split(" ");
                if (parts[0].equals("LOST")) {
                    losses.putIfAbsent(
                            LockMode.valueOf(parts[1]),
                            new Loss(LossCause.valueOf(parts[2]), Long.parseLong(parts[3])));
                } else if (parts[0].equals("NOTHELD")) {
                    notHeld.putIfAbsent(LockMode.valueOf(parts[1]), Long.parseLong(parts[2]));
                } else if (List.of("TRIED", "UNLOCKED", "WROTE", "HELD?").contains(parts[0])) {
                    replies.add(line);
                }
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
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
            String line = replies.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError("The holder did not answer " + command + " within " + timeout + " (got "
                        + answers.keySet() + "); its output:\n" + output());
            }
            String[] parts = line.split(" ");
            answers.put(LockMode.valueOf(parts[1]), java.util.Arrays.copyOfRange(parts, 2, parts.length));
        }
        return answers;
    }

    String output() {
        synchronized (output) {
            return String.join("\n", output) + "\n" + jvm.transcript();
        }
    }

    @Override
    public void close() throws Exception {
        jvm.close();
        proxy.close();
    }
}
