/** Fresh databases on a real MySQL 8 or MariaDB server for tests, chosen by {@code BIZLOCK_TEST_DB}. */
package io.github.bizlock.test;
