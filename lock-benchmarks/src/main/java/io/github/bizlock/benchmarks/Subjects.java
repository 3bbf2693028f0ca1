package io.github.bizlock.benchmarks;

import io.github.bizlock.LockMode;
import io.github.bizlock.benchmarks.Subject.Kind;
import io.github.bizlock.benchmarks.Subject.Token;
import java.util.List;

/** Every subject of the benchmark, and how to make a {@link Node} of each. */
final class Subjects {

    static final Subject LEASE = bizlock("bizlock-lease", "bizlock LEASE", Token.WHEN_ASKED);
    static final Subject ROW = bizlock("bizlock-row", "bizlock ROW", Token.WHEN_ASKED);
    static final Subject NAMED = bizlock("bizlock-named", "bizlock NAMED", Token.WHEN_ASKED);
    // ROW and NAMED issue their token only when asked, so A also shows what asking costs; LEASE's token is free.
    static final Subject ROW_TOKEN = bizlock("bizlock-row-token", "bizlock ROW + token", Token.EVERY_LOCK);
    static final Subject NAMED_TOKEN = bizlock("bizlock-named-token", "bizlock NAMED + token", Token.EVERY_LOCK);
    static final Subject LEASE_FAIR = bizlock("bizlock-lease-fair", "bizlock LEASE fair", Token.WHEN_ASKED);
    static final Subject ROW_FAIR = bizlock("bizlock-row-fair", "bizlock ROW fair", Token.WHEN_ASKED);
    static final Subject NAMED_FAIR = bizlock("bizlock-named-fair", "bizlock NAMED fair", Token.WHEN_ASKED);
    static final Subject SHEDLOCK =
            new Subject("shedlock", "ShedLock JdbcTemplateLockProvider (DB time)", Kind.DATABASE, true);
    static final Subject SPRING_INTEGRATION =
            new Subject("spring-integration", "Spring Integration JdbcLockRegistry", Kind.DATABASE, true);
    static final Subject REDISSON = new Subject("redisson", "Redisson RLock (Redis)", Kind.REDIS, true);
    static final Subject FLOOR_INSERT_DELETE =
            new Subject("floor-insert-delete", "floor: INSERT + DELETE (unique key)", Kind.DATABASE, false);
    static final Subject FLOOR_GET_LOCK =
            new Subject("floor-get-lock", "floor: GET_LOCK + RELEASE_LOCK", Kind.DATABASE, true);
    static final Subject FLOOR_FOR_UPDATE =
            new Subject("floor-for-update", "floor: SELECT FOR UPDATE + COMMIT", Kind.DATABASE, true);
    static final Subject FLOOR_SELECT_1 = new Subject("floor-select-1", "floor: SELECT 1", Kind.DATABASE, false);

    static final List<Subject> ALL = List.of(
            LEASE,
            ROW,
            NAMED,
            ROW_TOKEN,
            NAMED_TOKEN,
            LEASE_FAIR,
            ROW_FAIR,
            NAMED_FAIR,
            SHEDLOCK,
            SPRING_INTEGRATION,
            REDISSON,
            FLOOR_INSERT_DELETE,
            FLOOR_GET_LOCK,
            FLOOR_FOR_UPDATE,
            FLOOR_SELECT_1);

    private Subjects() {}

    private static Subject bizlock(String id, String label, Token token) {
        return new Subject(id, label, Kind.DATABASE, true, token);
    }

    static Subject byId(String id) {
        return ALL.stream()
                .filter(subject -> subject.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown subject " + id));
    }

    /** A new client of {@code subject} for {@code threads} threads. */
    static Node node(Subject subject, Env env, int threads) throws Exception {
        return switch (subject.id()) {
            case "bizlock-lease" -> BizLockNode.of(env, LockMode.LEASE, threads, false, false);
            case "bizlock-row" -> BizLockNode.of(env, LockMode.ROW, threads, false, false);
            case "bizlock-named" -> BizLockNode.of(env, LockMode.NAMED, threads, false, false);
            case "bizlock-row-token" -> BizLockNode.of(env, LockMode.ROW, threads, false, true);
            case "bizlock-named-token" -> BizLockNode.of(env, LockMode.NAMED, threads, false, true);
            case "bizlock-lease-fair" -> BizLockNode.of(env, LockMode.LEASE, threads, true, false);
            case "bizlock-row-fair" -> BizLockNode.of(env, LockMode.ROW, threads, true, false);
            case "bizlock-named-fair" -> BizLockNode.of(env, LockMode.NAMED, threads, true, false);
            case "shedlock" -> new ShedLockNode(env, threads);
            case "spring-integration" -> new SpringIntegrationNode(env, threads);
            case "redisson" -> new RedissonNode(env, threads);
            case "floor-insert-delete" -> new Floors.InsertDelete(env, threads);
            case "floor-get-lock" -> new Floors.GetLock(env, threads);
            case "floor-for-update" -> new Floors.ForUpdate(env, threads);
            case "floor-select-1" -> new Floors.SelectOne(env, threads);
            default -> throw new IllegalArgumentException("unknown subject " + subject.id());
        };
    }
}
