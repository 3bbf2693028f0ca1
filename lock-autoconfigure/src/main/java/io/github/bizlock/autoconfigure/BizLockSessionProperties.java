package io.github.bizlock.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the connections that ROW and NAMED locks hold for as long as they are held. */
@ConfigurationProperties("bizlock.session")
public class BizLockSessionProperties {

    /**
     * Most connections ROW and NAMED locks may hold at once, opened beside the application's pool (never taken from
     * it); one more is opened to end waits. Acquiring beyond it fails at once.
     */
    private int maxConnections = 10;

    public int getMaxConnections() {
        return maxConnections;
    }

    public void setMaxConnections(int maxConnections) {
        this.maxConnections = PropertyChecks.atLeast(
                "bizlock.session.max-connections",
                maxConnections,
                1,
                "it must be at least 1",
                "Set bizlock.session.max-connections to 1 or more, such as 10, or remove it");
    }
}
