package io.github.bizlock.benchmarks;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Redisson's RLock with its watchdog (no lease given), as {@code lock()} is usually called. */
final class RedissonNode implements Node {

    private final RedissonClient client;

    RedissonNode(Env env, int threads) {
        Config config = new Config();
        config.setThreads(2);
        config.setNettyThreads(Math.max(4, threads));
        config.useSingleServer()
                .setAddress("redis://" + env.redisHost() + ":" + env.redisPort())
                .setConnectionPoolSize(Math.max(4, threads + 2))
                .setConnectionMinimumIdleSize(Math.max(2, threads))
                .setSubscriptionConnectionPoolSize(4)
                .setSubscriptionConnectionMinimumIdleSize(1);
        this.client = Redisson.create(config);
    }

    RedissonClient client() {
        return client;
    }

    @Override
    public Held lock(String key) throws Exception {
        return Held.tryLock(client.getLock("bench:" + key), "Redisson");
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
