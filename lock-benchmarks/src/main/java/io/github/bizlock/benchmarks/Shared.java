package io.github.bizlock.benchmarks;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Counters in a memory-mapped file, shared by every thread of every JVM of one contended run: who is inside the
 * critical section (overlap check), when the last holder released (hand-off latency; {@code System.nanoTime} is
 * the machine's monotonic clock on Linux, the same in every process), who held the lock last (same-owner share), the
 * last fencing token, the run's phase, and when a worker JVM was killed and what its survivors waited after that; in S,
 * the permit holders and each slot's last token.
 *
 * <p>{@link #INSIDE} counts the holders inside the critical section in 16 bits per process ({@link #insideUnit}), so
 * that after a kill -9 the holder the killed process left inside can be taken out again: a dead process holds nothing
 * a live one could overlap with.
 */
final class Shared {

    static final int INSIDE = 0;
    static final int OVERLAPS = 8;
    static final int LAST_RELEASE = 16;
    static final int LAST_TOKEN = 24;
    static final int TOKEN_VIOLATIONS = 32;
    static final int READY = 40;
    static final int PHASE = 48;
    /** The {@link Contended#holderId} of the latest acquisition. */
    static final int LAST_HOLDER = 56;
    /** When the killed JVM was sent SIGKILL (0: no kill), and its process index. */
    static final int KILLED_AT = 64;

    static final int KILLED_PROCESS = 72;
    /**
     * The first acquisition by a survivor after the kill, and the longest wait among those acquisitions, counted from
     * the kill (or from the request, if later).
     */
    static final int FIRST_AFTER_KILL = 80;

    static final int LONGEST_AFTER_KILL = 88;

    /** S: the permit holders inside the critical section in every JVM, and the most there ever were at once. */
    static final int PERMIT_HOLDERS = 96;

    static final int MOST_PERMIT_HOLDERS = 104;
    /** S: the last fencing token of each permit slot, a long each from here. */
    static final int SLOT_TOKENS = 128;

    static final long WAITING = 0;
    static final long WARMUP = 1;
    static final long MEASURING = 2;
    static final long STOPPING = 3;

    private static final int SIZE = SLOT_TOKENS + 8 * SemaphoreScenario.PERMITS;
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final Path file;
    private final MappedByteBuffer buffer;

    private Shared(Path file, MappedByteBuffer buffer) {
        this.file = file;
        this.buffer = buffer;
    }

    static Shared create() throws IOException {
        Path directory = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of("/tmp");
        Path file = Files.createTempFile(directory, "bizlock-bench-", ".shm");
        file.toFile().deleteOnExit();
        return open(file);
    }

    static Shared open(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
            return new Shared(file, buffer);
        }
    }

    Path file() {
        return file;
    }

    long get(int offset) {
        return (long) LONGS.getVolatile(buffer, offset);
    }

    void set(int offset, long value) {
        LONGS.setVolatile(buffer, offset, value);
    }

    long add(int offset, long delta) {
        return (long) LONGS.getAndAdd(buffer, offset, delta);
    }

    long getAndSet(int offset, long value) {
        return (long) LONGS.getAndSet(buffer, offset, value);
    }

    boolean compareAndSet(int offset, long expected, long value) {
        return LONGS.compareAndSet(buffer, offset, expected, value);
    }

    /** Raises the value at {@code offset} to {@code value} if that is larger. */
    void max(int offset, long value) {
        for (long current = get(offset); value > current; current = get(offset)) {
            if (compareAndSet(offset, current, value)) {
                return;
            }
        }
    }

    /** What one holder of process {@code process} (0 to 3) adds to {@link #INSIDE}. */
    static long insideUnit(int process) {
        return 1L << (16 * process);
    }

    /** How many holders of {@code process} an {@link #INSIDE} value counts. */
    static long insideOf(long inside, int process) {
        return (inside >>> (16 * process)) & 0xFFFF;
    }
}
