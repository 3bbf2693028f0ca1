package io.github.bizlock.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.service.LockService;
import java.util.function.UnaryOperator;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * bizlock as a user without Spring Boot builds it: {@link LockService} over the client's pool, with every default, and
 * a plain session DataSource for ROW and NAMED (README, "Without Spring Boot"). The fencing token is asked of the
 * handle only when {@link Held#token()} is called, unless {@code readToken} has every lock read it.
 */
final class BizLockNode implements Node, PermitNode {

    private final HikariDataSource pool;
    private final LockService service;
    private final LockOptions options;
    private final String name;
    private final String permitsName;
    private final boolean readToken;

    /**
     * @param settings the builder settings that differ from the defaults: only what a scenario is about (the
     *     fair(false) rows, E's and K's watchdog lease)
     */
    BizLockNode(Env env, LockMode mode, int threads, boolean readToken, UnaryOperator<LockService.Builder> settings) {
        this.pool = Pools.forClient(env, threads);
        try {
            this.service = settings.apply(LockService.builder(pool)
                            .sessionDataSource(new DriverManagerDataSource(env.jdbcUrl(), env.user(), env.password())))
                    .build();
        } catch (RuntimeException ex) {
            pool.close();
            throw ex;
        }
        this.options = LockOptions.defaults().mode(mode).waitTime(WAIT);
        // A name per mode: each lock name is bound to the mode of its first use.
        this.name = "bench-" + mode;
        this.permitsName = "bench-permits-" + mode;
        this.readToken = readToken;
    }

    /** With every builder setting at its default. */
    static BizLockNode of(Env env, LockMode mode, int threads, boolean readToken) {
        return new BizLockNode(env, mode, threads, readToken, UnaryOperator.identity());
    }

    /** With threads of this client not served in the order they asked ({@code fair(false)}; fair is the default). */
    static BizLockNode unfair(Env env, LockMode mode, int threads) {
        return new BizLockNode(env, mode, threads, false, builder -> builder.fair(false));
    }

    LockTemplate template() {
        return service.template();
    }

    @Override
    public Held lock(String key) {
        LockHandle handle = template()
                .tryAcquire(name, key, options)
                .orElseThrow(() -> new IllegalStateException("bizlock: not acquired in " + WAIT));
        Held held = Held.of(handle::fencingToken, handle::unlock);
        if (readToken) {
            held.token();
        }
        return held;
    }

    /**
     * One permit, under a name of its own ({@code bench-permits-<mode>}: a name is bound either to plain locks or to one
     * number of permits); its token is read at once, as the S scenario checks every one.
     */
    @Override
    public Permit acquire(String key) {
        PermitHandle handle = template()
                .tryAcquirePermit(permitsName, key, SemaphoreScenario.PERMITS, options)
                .orElseThrow(() -> new IllegalStateException("bizlock: no permit in " + WAIT));
        return new Permit(handle.slot(), handle.fencingToken(), handle::unlock);
    }

    @Override
    public void close() {
        service.close();
        pool.close();
    }
}
