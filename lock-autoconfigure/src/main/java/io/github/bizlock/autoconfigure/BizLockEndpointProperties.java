package io.github.bizlock.autoconfigure;

import java.util.LinkedHashSet;
import java.util.Set;

/** The bizlocks Actuator endpoint. */
public class BizLockEndpointProperties {

    /** Most cluster-wide held locks the bizlocks endpoint lists. */
    private int maxLocks = 200;

    /** When the bizlocks endpoint lists lock keys, which are often personal data, rather than masking them. */
    private ShowValues showValues = ShowValues.NEVER;

    /** Roles a caller needs to see lock keys when show-values is when-authorized; when empty, any authenticated one. */
    private Set<String> roles = new LinkedHashSet<>();

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

    public ShowValues getShowValues() {
        return showValues;
    }

    public void setShowValues(ShowValues showValues) {
        this.showValues = showValues;
    }

    public Set<String> getRoles() {
        return roles;
    }

    public void setRoles(Set<String> roles) {
        this.roles = roles;
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

    /**
     * When lock keys are shown, as Spring Boot's {@code Show} for the {@code env} endpoint's values (not that type
     * itself, which only Actuator brings).
     */
    public enum ShowValues {
        /** Keys are always masked. */
        NEVER,
        /** Keys are shown to an authenticated caller with one of the roles, or with any role when none are set. */
        WHEN_AUTHORIZED,
        /** Keys are shown to every caller of the endpoint. */
        ALWAYS
    }
}
