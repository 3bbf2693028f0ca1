package io.github.bizlock.internal.jdbc;

/**
 * Runs database work with the thread's interrupt status put aside: on a virtual thread, a statement (or a ping) begun
 * with it set closes the connection, so an interrupted holder would lose its connection or session instead of releasing
 * its lock or getting its token. The status is set again after the work, however it ended.
 */
public final class InterruptStatus {

    /** Database work, which may throw {@code E} (a {@link java.sql.SQLException}, say). */
    @FunctionalInterface
    public interface Work<T, E extends Exception> {
        T run() throws E;
    }

    private InterruptStatus() {}

    /** Runs {@code work} with the thread's interrupt status cleared, and sets it again after if it was set. */
    public static <T, E extends Exception> T cleared(Work<T, E> work) throws E {
        boolean interrupted = Thread.interrupted();
        try {
            return work.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
