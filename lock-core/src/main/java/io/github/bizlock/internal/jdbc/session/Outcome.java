package io.github.bizlock.internal.jdbc.session;

/** What one attempt at a lock on a session came to. */
enum Outcome {
    /** The session holds the lock. */
    ACQUIRED,
    /** Another session holds the lock; try again unless the deadline passed. */
    BUSY,
    /** The wait was ended at the deadline. */
    DEADLINE,
    /** The wait was ended because the thread was interrupted. */
    INTERRUPTED,
    /** The attempt could not take the lock but prepared it (ROW: created the missing row); try again at once. */
    RETRY;

    /** The outcome of a wait that a watch ended. */
    static Outcome endedBy(SessionCanceller.Ending ending) {
        return ending == SessionCanceller.Ending.DEADLINE ? DEADLINE : INTERRUPTED;
    }
}
