/**
 * Fresh databases on a real MySQL 8 or MariaDB server for tests, chosen by {@code BIZLOCK_TEST_DB}; a proxy that cuts
 * their connections; and the one harness for tests that run a second JVM ({@link io.github.bizlock.test.ChildJvm}).
 */
package io.github.bizlock.test;
