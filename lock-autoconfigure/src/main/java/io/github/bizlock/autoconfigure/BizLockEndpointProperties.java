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
        if (maxLocks < 1) {
            throw new IllegalArgumentException("bizlock.endpoint.max-locks must be at least 1, was " + maxLocks);
        }
        this.maxLocks = maxLocks;
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
