package io.github.bizlock.benchmarks;

import io.github.bizlock.benchmarks.Subject.Kind;

/**
 * The statements a subject sent, counted outside it: the database's global status, and Redis's commands for a Redis
 * subject.
 */
record Counters(Stats.Reading database, long redis) {

    static Counters read(Stats stats, Subject subject) throws Exception {
        return new Counters(stats.read(), subject.kind() == Kind.REDIS ? stats.redisCommands() : 0);
    }

    /** What was sent since {@code before}, less the later reading's own Redis command. */
    Counters minus(Counters before) {
        return new Counters(database.minus(before.database), redis - before.redis - 1);
    }
}
