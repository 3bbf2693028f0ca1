package io.github.bizlock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RPermitExpirableSemaphore;

/**
 * Redisson's {@code RPermitExpirableSemaphore}, the one of its semaphores whose permits have an owner (a permit id) and
 * an expiry, as bizlock's do; it has no watchdog, so each permit is taken with a fixed lease of {@link Node#WAIT}, far
 * longer than the 1 ms it is held. {@code RSemaphore} would have neither an owner nor an expiry.
 */
final class RedissonPermitNode implements PermitNode {

    private final RedissonNode redisson;
    private final RPermitExpirableSemaphore semaphore;

    /** @param name the semaphore's Redis key, new for each run (all its JVMs share it), so no permit of another run counts */
    RedissonPermitNode(Env env, int threads, String name) {
        this.redisson = new RedissonNode(env, threads);
        this.semaphore = redisson.client().getPermitExpirableSemaphore(name);
        // The first JVM of a run sets the permits; the others find them set.
        if (!semaphore.trySetPermits(SemaphoreScenario.PERMITS)
                && semaphore.getPermits() != SemaphoreScenario.PERMITS) {
            redisson.close();
            throw new IllegalStateException("Redisson: the semaphore " + name + " has " + semaphore.getPermits()
                    + " permits, not " + SemaphoreScenario.PERMITS);
        }
    }

    @Override
    public Permit acquire(String key) throws InterruptedException {
        String permit = semaphore.tryAcquire(Node.WAIT.toMillis(), Node.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        if (permit == null) {
            throw new IllegalStateException("Redisson: no permit in " + Node.WAIT);
        }
        return new Permit(-1, -1, () -> semaphore.release(permit));
    }

    /** Lets Redis drop the semaphore a minute after its last client closed: JVMs of one run close one by one. */
    @Override
    public void close() {
        semaphore.expire(Duration.ofMinutes(1));
        redisson.close();
    }
}
