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
    // Fair is the default (issue 32, item 2); these rows show what it costs or saves.
    static final Subject LEASE_UNFAIR = bizlock("bizlock-lease-unfair", "bizlock LEASE fair(false)", Token.WHEN_ASKED);
    static final Subject ROW_UNFAIR = bizlock("bizlock-row-unfair", "bizlock ROW fair(false)", Token.WHEN_ASKED);
    static final Subject NAMED_UNFAIR = bizlock("bizlock-named-unfair", "bizlock NAMED fair(false)", Token.WHEN_ASKED);
    /** K's subject: LEASE with a short watchdog lease, so that a killed holder's lock frees in seconds. */
    static final Subject LEASE_KILL = bizlock(
            "bizlock-lease-kill",
            "bizlock LEASE, watchdogLease " + KillScenario.LEASE.toMillis() + " ms",
            Token.WHEN_ASKED);

    static final Subject SHEDLOCK =
            new Subject("shedlock", "ShedLock JdbcTemplateLockProvider (DB time)", Kind.DATABASE, true);
    static final Subject SPRING_INTEGRATION =
            new Subject("spring-integration", "Spring Integration JdbcLockRegistry", Kind.DATABASE, true);
    static final Subject REDISSON = new Subject("redisson", "Redisson RLock (Redis)", Kind.REDIS, true);
    /** S's Redisson: its semaphore whose permits have an owner and an expiry, as bizlock's do. */
    static final Subject REDISSON_SEMAPHORE =
            new Subject("redisson-semaphore", "Redisson RPermitExpirableSemaphore (Redis)", Kind.REDIS, false);

    static final Subject FLOOR_INSERT_DELETE =
            new Subject("floor-insert-delete", "floor: INSERT + DELETE (unique key)", Kind.DATABASE, false);
    static final Subject FLOOR_GET_LOCK =
            new Subject("floor-get-lock", "floor: GET_LOCK + RELEASE_LOCK", Kind.DATABASE, true);
    static final Subject FLOOR_FOR_UPDATE =
            new Subject("floor-for-update", "floor: SELECT FOR UPDATE + COMMIT", Kind.DATABASE, true);
    static final Subject FLOOR_SELECT_1 = new Subject("floor-select-1", "floor: SELECT 1", Kind.DATABASE, false);
    static final Subject FLOOR_LEASE_HANDOFF = new Subject(
            "floor-lease-handoff",
            "floor: lease hand-off (GET_LOCK wake + UPDATE + UPDATE)",
            Kind.DATABASE,
            true,
            Token.EVERY_LOCK);
    static final Subject FLOOR_TOKEN_GET_LOCK = new Subject(
            "floor-token-get-lock",
            "floor: GET_LOCK + counter UPDATE + RELEASE_LOCK",
            Kind.DATABASE,
            true,
            Token.EVERY_LOCK);
    static final Subject FLOOR_TOKEN_FOR_UPDATE = new Subject(
            "floor-token-for-update",
            "floor: FOR UPDATE + counter UPDATE + COMMIT",
            Kind.DATABASE,
            true,
            Token.EVERY_LOCK);

    static final List<Subject> ALL = List.of(
            LEASE,
            ROW,
            NAMED,
            ROW_TOKEN,
            NAMED_TOKEN,
            LEASE_UNFAIR,
            ROW_UNFAIR,
            NAMED_UNFAIR,
            LEASE_KILL,
            SHEDLOCK,
            SPRING_INTEGRATION,
            REDISSON,
            REDISSON_SEMAPHORE,
            FLOOR_INSERT_DELETE,
            FLOOR_GET_LOCK,
            FLOOR_FOR_UPDATE,
            FLOOR_SELECT_1,
            FLOOR_LEASE_HANDOFF,
            FLOOR_TOKEN_GET_LOCK,
            FLOOR_TOKEN_FOR_UPDATE);

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
            case "bizlock-lease" -> BizLockNode.of(env, LockMode.LEASE, threads, false);
            case "bizlock-row" -> BizLockNode.of(env, LockMode.ROW, threads, false);
            case "bizlock-named" -> BizLockNode.of(env, LockMode.NAMED, threads, false);
            case "bizlock-row-token" -> BizLockNode.of(env, LockMode.ROW, threads, true);
            case "bizlock-named-token" -> BizLockNode.of(env, LockMode.NAMED, threads, true);
            case "bizlock-lease-unfair" -> BizLockNode.unfair(env, LockMode.LEASE, threads);
            case "bizlock-row-unfair" -> BizLockNode.unfair(env, LockMode.ROW, threads);
            case "bizlock-named-unfair" -> BizLockNode.unfair(env, LockMode.NAMED, threads);
            case "bizlock-lease-kill" ->
                new BizLockNode(
                        env, LockMode.LEASE, threads, false, builder -> builder.watchdogLease(KillScenario.LEASE));
            case "shedlock" -> new ShedLockNode(env, threads);
            case "spring-integration" -> new SpringIntegrationNode(env, threads);
            case "redisson" -> new RedissonNode(env, threads);
            case "floor-insert-delete" -> new Floors.InsertDelete(env, threads);
            case "floor-get-lock" -> new Floors.GetLock(env, threads);
            case "floor-for-update" -> new Floors.ForUpdate(env, threads);
            case "floor-select-1" -> new Floors.SelectOne(env, threads);
            case "floor-lease-handoff" -> new TokenFloors.LeaseHandOff(env, threads);
            case "floor-token-get-lock" -> new TokenFloors.GetLockToken(env, threads);
            case "floor-token-for-update" -> new TokenFloors.ForUpdateToken(env, threads);
            default -> throw new IllegalArgumentException("unknown subject " + subject.id());
        };
    }
}
