package io.github.bizlock.benchmarks;

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

    /** @param name the semaphore's Redis key, new for each run, so that no permit of an earlier run is counted */
    RedissonPermitNode(Env env, int threads, String name) {
        this.redisson = new RedissonNode(env, threads);
        this.semaphore = redisson.client().getPermitExpirableSemaphore(name);
        if (!semaphore.trySetPermits(SemaphoreScenario.PERMITS)) {
            redisson.close();
            throw new IllegalStateException("Redisson: the semaphore " + name + " had its permits set already");
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

    @Override
    public void close() {
        semaphore.delete();
        redisson.close();
    }
}
