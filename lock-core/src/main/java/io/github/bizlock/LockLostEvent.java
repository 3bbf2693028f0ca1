package io.github.bizlock;

import java.time.Instant;

/**
 * A lock was lost while held: its lease could not be renewed before it ended, it was taken over, or the database
 * session that held it ended. The holder keeps running; what it writes after this point should be fenced.
 *
 * @param name the lock's name
 * @param key the lock's key
 * @param mode the lock's mode
 * @param fencingToken the token of the lost acquisition, or 0 if it never asked for one (ROW and NAMED issue tokens
 *     on demand)
 * @param owner the instance id that held it
 * @param holderThread the name of the thread that held it
 * @param cause why it was lost, for code: the lease ended, another owner took it over, its session ended, ...
 * @param reason why it was lost, for logs: the cause with what the lock manager saw
 * @param lostAt when this process noticed the loss
 */
public record LockLostEvent(
        String name,
        String key,
        LockMode mode,
        long fencingToken,
        String owner,
        String holderThread,
        LossCause cause,
        String reason,
        Instant lostAt) {}
