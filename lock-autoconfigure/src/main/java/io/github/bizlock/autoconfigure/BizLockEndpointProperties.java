package io.github.bizlock.autoconfigure;

/** The bizlocks Actuator endpoint. */
public class BizLockEndpointProperties {

    /** Most cluster-wide held locks the bizlocks endpoint lists. */
    private int maxLocks = 200;

    private final ForceRelease forceRelease = new ForceRelease();

    public int getMaxLocks() {
        return maxLocks;
    }

    public void setMaxLocks(int maxLocks) {
        this.maxLocks = PropertyChecks.atLeast(
                "bizlock.endpoint.max-locks",
                maxLocks,
                1,
                "it must be at least 1",
                "Set bizlock.endpoint.max-locks to 1 or more, such as 200, or remove it");
    }

    public ForceRelease getForceRelease() {
        return forceRelease;
    }

    /** The endpoint's write operation. */
    public static class ForceRelease {

        /** Whether the bizlocks endpoint may force-release a LEASE lock held by any instance. */
        private boolean enabled = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
