package io.github.bizlock.benchmarks;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * What one JVM's threads of a contended run measured while the phase was {@link Shared#MEASURING}, and how a worker
 * JVM sends it back on one {@code RESULT} line of its stdout.
 *
 * @param perThread acquisitions of each thread
 * @param instances the instance (client) each thread belongs to, in the same order
 * @param heldNanos the time they held the lock in all (acquisition to release)
 * @param handOff from the last holder starting to release until the next one had the lock
 * @param sameThread acquisitions whose previous holder was the same thread
 * @param sameInstance acquisitions whose previous holder was a thread of the same instance
 * @param waits each thread's raw waits, from calling lock to having it, in nanoseconds
 */
record ContendedPart(
        List<Long> perThread,
        List<Integer> instances,
        long heldNanos,
        Histogram handOff,
        long sameThread,
        long sameInstance,
        List<long[]> waits) {

    String encode() {
        ByteBuffer buffer = ByteBuffer.allocate(handOff.getNeededByteBufferCapacity());
        int length = handOff.encodeIntoCompressedByteBuffer(buffer);
        byte[] bytes = new byte[length];
        buffer.flip();
        buffer.get(bytes);
        return String.join(
                " ",
                "RESULT",
                join(perThread),
                join(instances),
                Long.toString(heldNanos),
                Base64.getEncoder().encodeToString(bytes),
                Long.toString(sameThread),
                Long.toString(sameInstance),
                waits.stream()
                        .map(thread -> thread.length == 0
                                ? "-"
                                : join(Arrays.stream(thread).boxed().toList()))
                        .collect(Collectors.joining(";")));
    }

    static ContendedPart decode(String line) throws Exception {
        String[] parts = line.split(" ");
        List<Long> counts = new ArrayList<>();
        for (String count : parts[1].split(",")) {
            counts.add(Long.parseLong(count));
        }
        List<Integer> instances = new ArrayList<>();
        for (String instance : parts[2].split(",")) {
            instances.add(Integer.parseInt(instance));
        }
        Histogram histogram = Histogram.decodeFromCompressedByteBuffer(
                ByteBuffer.wrap(Base64.getDecoder().decode(parts[4])), 0);
        List<long[]> waits = new ArrayList<>();
        for (String thread : parts[7].split(";")) {
            waits.add(
                    thread.equals("-")
                            ? new long[0]
                            : Arrays.stream(thread.split(","))
                                    .mapToLong(Long::parseLong)
                                    .toArray());
        }
        return new ContendedPart(
                counts,
                instances,
                Long.parseLong(parts[3]),
                histogram,
                Long.parseLong(parts[5]),
                Long.parseLong(parts[6]),
                waits);
    }

    private static String join(List<? extends Number> values) {
        return values.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
