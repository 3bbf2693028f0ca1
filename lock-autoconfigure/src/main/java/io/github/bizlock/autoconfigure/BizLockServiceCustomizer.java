package io.github.bizlock.autoconfigure;

import io.github.bizlock.service.LockService;

/**
 * Changes the {@link LockService.Builder} that the auto-configuration has set from the {@code bizlock.*} properties,
 * before it builds the lock service: the hook for what properties cannot say, such as a
 * {@linkplain LockService.Builder#lockConnections DataSource of one's own for LEASE writes} or
 * {@linkplain LockService.Builder#sessionDataSource for the sessions of ROW and NAMED locks}. Beans of this type are
 * applied in their order, once, at the first attempt to build (at start-up, or at the
 * first lock when the lock database did not answer then).
 */
@FunctionalInterface
public interface BizLockServiceCustomizer {

    /** Changes the builder; the {@code bizlock.*} properties are already set on it. */
    void customize(LockService.Builder builder);
}
