package io.github.bizlock.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

/**
 * The former name of {@code bizlock.writes.max-connections}, read for one release: {@code max-size} and
 * {@code bizlock.session.max-connections} said the same thing (the most connections of a pool of bizlock's own) in two
 * words.
 */
@ConfigurationProperties("bizlock.connections")
public class BizLockConnectionsProperties {

    /** Most connections bizlock keeps for LEASE writes and fencing tokens. */
    private @Nullable Integer maxSize;

    @Deprecated(since = "0.1.0", forRemoval = true)
    @DeprecatedConfigurationProperty(
            replacement = "bizlock.writes.max-connections",
            reason = "One word for the most connections of bizlock's pools, as bizlock.session.max-connections",
            since = "0.1.0")
    public @Nullable Integer getMaxSize() {
        return maxSize;
    }

    @Deprecated(since = "0.1.0", forRemoval = true)
    public void setMaxSize(@Nullable Integer maxSize) {
        this.maxSize = maxSize == null
                ? null
                : PropertyChecks.atLeast(
                        "bizlock.connections.max-size",
                        maxSize,
                        1,
                        "it must be at least 1",
                        "Set bizlock.writes.max-connections (its new name) to 1 or more, such as 4, and remove"
                                + " bizlock.connections.max-size");
    }

    /**
     * The size of the pool of lock writes: {@code bizlock.writes.max-connections}, else this former name, else the
     * default.
     */
    @SuppressWarnings("removal")
    static int maxWriteConnections(BizLockWritesProperties writes, BizLockConnectionsProperties former) {
        Integer size = writes.getMaxConnections();
        if (size == null) {
            size = former.getMaxSize();
        }
        return size != null ? size : io.github.bizlock.service.LockDefaults.MAX_WRITE_CONNECTIONS;
    }
}
