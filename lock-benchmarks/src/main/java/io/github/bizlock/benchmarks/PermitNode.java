package io.github.bizlock.benchmarks;

/** One semaphore client of a subject (one application instance), used by several threads: the S scenario's node. */
interface PermitNode extends AutoCloseable {

    /** Acquires one permit of the semaphore {@code key} of {@link SemaphoreScenario#PERMITS}, within {@link Node#WAIT}. */
    Permit acquire(String key) throws Exception;

    @Override
    void close() throws Exception;

    /**
     * A permit held.
     *
     * @param slot the slot it holds, from 0 to the permits - 1, or -1 when the implementation does not say
     * @param token its slot's fencing token, or -1 when the implementation has none
     */
    record Permit(int slot, long token, Held.Release release) {}
}
