package io.github.bizlock.autoconfigure;

import io.github.bizlock.service.LockDefaults;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the connections that ROW and NAMED locks hold for as long as they are held. */
@ConfigurationProperties("bizlock.session")
public class BizLockSessionProperties {

    /**
     * Most connections ROW and NAMED locks may hold at once, opened beside the application's pool (never taken from
     * it); one more is opened to end waits. An acquisition that finds them all held waits for one within its wait time,
     * then fails naming this setting.
     */
    private int maxConnections = LockDefaults.MAX_SESSIONS;

    /**
     * How often a held ROW or NAMED lock's session is checked (a third of the watchdog lease if that is shorter): the
     * longest a holder goes on, unaware, after its session was killed or the server restarted.
     */
    private Duration heartbeat = LockDefaults.SESSION_HEARTBEAT;

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

    public Duration getHeartbeat() {
        return heartbeat;
    }

    public void setHeartbeat(Duration heartbeat) {
        this.heartbeat = PropertyChecks.positive(
                "bizlock.session.heartbeat",
                heartbeat,
                "Set bizlock.session.heartbeat to a positive duration, such as 1s, or remove it");
    }
}
