package io.github.bizlock.test;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.mysql.MySQLContainer;
import org.testcontainers.utility.DockerImageName;

/** MySQL 8.4 in a container, started once per JVM; needs a Docker engine. */
final class ContainerMySqlServer implements DatabaseServer {

    static final DockerImageName IMAGE = DockerImageName.parse("mysql:8.4");

    private final MySQLContainer container;

    private ContainerMySqlServer(MySQLContainer container) {
        this.container = container;
    }

    static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException ex) {
            return false;
        }
    }

    @SuppressWarnings("resource") // stopped by Testcontainers' reaper when the JVM exits
    static ContainerMySqlServer start() {
        if (!dockerAvailable()) {
            throw new IllegalStateException("BIZLOCK_TEST_DB=testcontainers needs a Docker engine and none answers; "
                    + "start Docker or use BIZLOCK_TEST_DB=mysql (embedded) or mariadb");
        }
        // As root, so tests may create a database per test class.
        MySQLContainer container =
                new MySQLContainer(IMAGE).withUsername("root").withPassword("bizlock");
        container.start();
        return new ContainerMySqlServer(container);
    }

    @Override
    public String jdbcUrl(String database) {
        return JdbcUrls.mysql(container.getHost() + ":" + container.getMappedPort(3306), database, null);
    }

    @Override
    public String username() {
        return container.getUsername();
    }

    @Override
    public String password() {
        return container.getPassword();
    }

    @Override
    public String origin() {
        return "Testcontainers " + IMAGE;
    }
}
