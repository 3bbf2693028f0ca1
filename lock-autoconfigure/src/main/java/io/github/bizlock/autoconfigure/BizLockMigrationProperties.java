package io.github.bizlock.autoconfigure;

/** The lock table's schema migration. */
public class BizLockMigrationProperties {

    /**
     * Whether to create and upgrade the lock table with Flyway at start-up, with a history table of its own (Flyway
     * must be on the class path); when off, start-up fails with the DDL to run if the table is missing.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }
}
