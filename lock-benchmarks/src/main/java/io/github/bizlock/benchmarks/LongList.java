package io.github.bizlock.benchmarks;

import java.util.Arrays;

/** A growable list of longs, for the raw wait samples a thread records while it measures. */
final class LongList {

    private long[] values = new long[1024];
    private int size;

    void add(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
