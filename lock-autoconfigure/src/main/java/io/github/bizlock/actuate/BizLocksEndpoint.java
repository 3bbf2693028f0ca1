package io.github.bizlock.actuate;

import io.github.bizlock.LockMode;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.service.LockService;
import io.github.bizlock.service.LockStatus;
import java.security.Principal;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The {@code bizlocks} endpoint. Reading it lists the LEASE locks held across the cluster (from the lock table) and
 * the locks this instance holds or waits for, in every mode, and the semaphores it holds permits of. Writing it ({@code POST} with {@code name} and
 * {@code key}) force-releases a LEASE lock whoever holds it; that is refused unless
 * {@code bizlock.endpoint.force-release.enabled=true}, and every force release is logged with the requesting principal.
 *
 * <p>Keys are often personal data (an e-mail address, a customer's id), so the listing masks them as {@value #MASK}
 * unless {@code bizlock.endpoint.show-values} says to show them, as Spring Boot's {@code show-values} does for the
 * {@code env} endpoint; names, owners, tokens and times are always listed.
 *
 * <p>ROW and NAMED locks are held by database sessions, not rows with an owner, so they are listed only by the
 * instance that holds them, and cannot be force-released here.
 */
@Endpoint(id = "bizlocks")
public final class BizLocksEndpoint {

    /** The property that allows force release. */
    public static final String FORCE_RELEASE_PROPERTY = "bizlock.endpoint.force-release.enabled";

    /** What a key the caller may not see is listed as. */
    public static final String MASK = "******";

    private static final Logger log = LoggerFactory.getLogger(BizLocksEndpoint.class);

    private final Supplier<LockService> services;
    private final int maxLocks;
    private final boolean forceReleaseEnabled;
    private final Show showValues;
    private final Set<String> roles;

    /**
     * An endpoint that never shows keys.
     *
     * @param maxLocks the most cluster-wide locks listed
     * @param forceReleaseEnabled whether the write operation may force-release locks
     */
    public BizLocksEndpoint(LockService service, int maxLocks, boolean forceReleaseEnabled) {
        this(constant(Objects.requireNonNull(service, "service")), maxLocks, forceReleaseEnabled, Show.NEVER, Set.of());
    }

    /**
     * For a lock service built when the lock database first answers: each operation gets it, and fails with the
     * supplier's error while the database does not answer.
     *
     * @param maxLocks the most cluster-wide locks listed
     * @param forceReleaseEnabled whether the write operation may force-release locks
     * @param showValues when the listing shows keys rather than {@value #MASK}
     * @param roles the roles that may see keys with {@link Show#WHEN_AUTHORIZED}; empty: any authenticated caller
     */
    public BizLocksEndpoint(
            Supplier<LockService> service,
            int maxLocks,
            boolean forceReleaseEnabled,
            Show showValues,
            Collection<String> roles) {
        if (maxLocks < 1) {
            throw new IllegalArgumentException("bizlock.endpoint.max-locks must be at least 1, was " + maxLocks);
        }
        this.services = Objects.requireNonNull(service, "service");
        this.maxLocks = maxLocks;
        this.forceReleaseEnabled = forceReleaseEnabled;
        this.showValues = Objects.requireNonNull(showValues, "showValues");
        this.roles = Set.copyOf(roles);
    }

    /** The locks, with keys shown only to a caller {@code bizlock.endpoint.show-values} lets see them. */
    @ReadOperation
    public LocksReport locks(SecurityContext securityContext) {
        boolean showKeys = showValues.isShown(securityContext, roles);
        LockService service = services.get();
        LockStatus status = service.status();
        List<BizLockDao.Row> rows = service.dao().findHeld(maxLocks + 1);
        List<HeldLock> held = rows.stream()
                .limit(maxLocks)
                .map(row -> HeldLock.of(row, showKeys))
                .toList();
        List<LockMode> notListed = status.modes().stream()
                .filter(mode -> mode != LockMode.LEASE)
                .sorted()
                .toList();
        List<LockStatus.LocalLock> local = service.localLocks();
        return new LocksReport(
                status.instanceId(),
                held,
                rows.size() > maxLocks,
                notListed,
                local.stream().map(lock -> InstanceLock.of(lock, showKeys)).toList(),
                InstancePermits.of(local, showKeys));
    }

    /**
     * Force-releases a LEASE lock, whoever holds it. Its holder learns at its next renewal or unlock that it lost the
     * lock, and reacts by its lost-lock policy.
     */
    @WriteOperation
    public WebEndpointResponse<ForceReleaseResult> release(String name, String key, SecurityContext securityContext) {
        Principal principal = securityContext.getPrincipal();
        String who = principal != null ? LogText.escape(principal.getName()) : "an unauthenticated caller";
        if (!forceReleaseEnabled) {
            log.warn(
                    "bizlock refused to force-release lock {}/{} requested by {}: {} is false",
                    LogText.escape(name),
                    LogText.escape(key),
                    who,
                    FORCE_RELEASE_PROPERTY);
            return new WebEndpointResponse<>(
                    new ForceReleaseResult(
                            name,
                            key,
                            false,
                            null,
                            "Force release is disabled; set " + FORCE_RELEASE_PROPERTY + "=true to allow it"),
                    403);
        }
        BizLockDao dao = services.get().dao();
        Optional<BizLockDao.Row> before;
        try {
            before = dao.find(name, key);
        } catch (IllegalArgumentException ex) {
            return new WebEndpointResponse<>(
                    new ForceReleaseResult(name, key, false, null, ex.getMessage()),
                    WebEndpointResponse.STATUS_BAD_REQUEST);
        }
        boolean released = dao.forceRelease(name, key);
        String lock = name + "/" + key;
        String formerOwner =
                before.filter(BizLockDao.Row::held).map(BizLockDao.Row::owner).orElse(null);
        if (released) {
            log.warn(
                    "bizlock force-released lock {} (owner {}, fencing token {}) at the request of {}",
                    LogText.escape(lock),
                    formerOwner != null ? LogText.escape(formerOwner) : null,
                    before.map(BizLockDao.Row::fencingToken).orElse(0L),
                    who);
            return new WebEndpointResponse<>(new ForceReleaseResult(
                    name, key, true, formerOwner, "Released; the former holder will report the lock lost"));
        }
        log.info("bizlock force release of lock {} requested by {}: it was not held", LogText.escape(lock), who);
        return new WebEndpointResponse<>(
                new ForceReleaseResult(name, key, false, null, "Not held: nothing to release"),
                WebEndpointResponse.STATUS_NOT_FOUND);
    }

    private static <T> Supplier<T> constant(T value) {
        return () -> value;
    }

    /**
     * What the endpoint lists.
     *
     * @param instance this instance's owner id
     * @param held LEASE locks held across the cluster, oldest first
     * @param truncated whether there were more than {@code bizlock.endpoint.max-locks} held
     * @param notListedModes modes whose locks are not listed cluster-wide (they have no owner rows)
     * @param local the locks this instance holds or waits for, in every mode (a semaphore's permits as its slot locks)
     * @param permits the semaphores this instance holds permits of, with the slots it holds
     */
    public record LocksReport(
            String instance,
            List<HeldLock> held,
            boolean truncated,
            List<LockMode> notListedModes,
            List<InstanceLock> local,
            List<InstancePermits> permits) {}

    /**
     * A LEASE lock held somewhere in the cluster; times are the database's, in UTC.
     *
     * @param name the lock's name
     * @param key the lock's key, or {@value BizLocksEndpoint#MASK}
     * @param mode always {@code LEASE}
     * @param owner the holding instance's owner id
     * @param fencingToken the token of the current hold
     * @param acquiredAt when it was acquired
     * @param expiresAt when its lease ends unless renewed
     */
    public record HeldLock(
            String name,
            String key,
            LockMode mode,
            @Nullable String owner,
            long fencingToken,
            String acquiredAt,
            String expiresAt) {

        static HeldLock of(BizLockDao.Row row, boolean showKey) {
            return new HeldLock(
                    row.name(),
                    showKey ? row.key() : MASK,
                    LockMode.LEASE,
                    row.owner(),
                    row.fencingToken(),
                    utc(row.acquiredAt()),
                    utc(row.expiresAt()));
        }

        private static String utc(LocalDateTime time) {
            return time.toInstant(ZoneOffset.UTC).toString();
        }
    }

    /**
     * A lock this instance holds or waits for.
     *
     * @param name the lock's name
     * @param key the lock's key, or {@value BizLocksEndpoint#MASK}
     * @param mode its mode
     * @param holderThread the thread holding it, or {@code null} while threads only wait
     * @param fencingToken the token of the current hold, or 0
     * @param heldForMillis how long it has been held
     * @param renewedByWatchdog whether the watchdog renews it
     * @param lost whether the hold was lost and not unlocked yet
     * @param onLost the holder's lost-lock policy
     * @param waiting how many other threads of this instance wait for it
     */
    public record InstanceLock(
            String name,
            String key,
            LockMode mode,
            @Nullable String holderThread,
            long fencingToken,
            long heldForMillis,
            boolean renewedByWatchdog,
            boolean lost,
            @Nullable String onLost,
            int waiting) {

        static InstanceLock of(LockStatus.LocalLock lock, boolean showKey) {
            return new InstanceLock(
                    lock.name(),
                    showKey ? lock.key() : MASK,
                    lock.mode(),
                    lock.holderThread(),
                    lock.fencingToken(),
                    lock.heldFor().toMillis(),
                    lock.renewedByWatchdog(),
                    lock.lost(),
                    lock.onLost() != null ? lock.onLost().name() : null,
                    lock.waiting());
        }
    }

    /**
     * The outcome of a force release.
     *
     * @param name the lock's name
     * @param key the lock's key
     * @param released whether a held lock was released
     * @param formerOwner the instance that held it, when known
     * @param message what happened
     */
    public record ForceReleaseResult(
            String name,
            String key,
            boolean released,
            @Nullable String formerOwner,
            String message) {}
}
