package io.github.bizlock.benchmarks;

/**
 * One lock implementation under test, as the report names it.
 *
 * @param id the name worker JVMs know it by
 * @param kind what its statements are counted on
 * @param contended whether it takes part in the contended scenarios
 */
record Subject(String id, String label, Kind kind, boolean contended, Token token) {

    /** An implementation without a fencing token. */
    Subject(String id, String label, Kind kind, boolean contended) {
        this(id, label, kind, contended, Token.NONE);
    }

    enum Kind {
        DATABASE,
        REDIS,
        NONE
    }

    /** Whether an implementation has a fencing token, and whether its node reads it by itself. */
    enum Token {
        /** The implementation has none: {@link Held#token()} is -1. */
        NONE,
        /** bizlock: the token is read only where a scenario calls {@link Held#token()} (C1 and C do, A and B not). */
        WHEN_ASKED,
        /**
         * The node reads the token in every {@link Node#lock}, as a holder that fences its writes does (bizlock's
         * "+ token" rows, and the floors that issue one).
         */
        EVERY_LOCK
    }
}
