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
 * the machine's monotonic clock on Linux, the same in every process), the last fencing token, and the run's phase.
 */
final class Shared {

    static final int INSIDE = 0;
    static final int OVERLAPS = 8;
    static final int LAST_RELEASE = 16;
    static final int LAST_TOKEN = 24;
    static final int TOKEN_VIOLATIONS = 32;
    static final int READY = 40;
    static final int PHASE = 48;

    static final long WAITING = 0;
    static final long WARMUP = 1;
    static final long MEASURING = 2;
    static final long STOPPING = 3;

    private static final int SIZE = 64;
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
}
