package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.Properties;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The lock-write pool copied from an application's HikariCP pool: every connection setting kept, its size bizlock's,
 * its idle check bounded, and not started before its first connection (the database may be down).
 */
class HikariLockPoolTest {

    private static HikariDataSource application() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:mysql://127.0.0.1:1/app?sslMode=REQUIRED");
        config.setUsername("app");
        config.setPassword("secret");
        config.setConnectionInitSql("SET time_zone = '+00:00'");
        Properties driver = new Properties();
        driver.setProperty("connectTimeout", "1500");
        config.setDataSourceProperties(driver);
        config.setMaximumPoolSize(30);
        config.setMinimumIdle(10);
        config.setPoolName("orders-pool");
        // Not started: HikariDataSource(HikariConfig) would connect at once.
        HikariDataSource pool = new HikariDataSource();
        config.copyStateTo(pool);
        return pool;
    }

    @Test
    void tellsAHikariPoolFromAnotherDataSource() {
        try (HikariDataSource hikari = application()) {
            assertThat(HikariLockPool.isHikari(hikari)).isTrue();
        }
        assertThat(HikariLockPool.isHikari(new DriverManagerDataSource())).isFalse();
    }

    @Test
    void aCopyKeepsEveryConnectionSettingWithBizlocksSizeAndName() {
        try (HikariDataSource application = application();
                HikariDataSource copy = (HikariDataSource) HikariLockPool.copyOf(application, 4)) {
            assertThat(copy.getJdbcUrl()).isEqualTo(application.getJdbcUrl());
            assertThat(copy.getUsername()).isEqualTo("app");
            assertThat(copy.getPassword()).isEqualTo("secret");
            assertThat(copy.getConnectionInitSql()).isEqualTo("SET time_zone = '+00:00'");
            assertThat(copy.getDataSourceProperties()).containsEntry("connectTimeout", "1500");
            assertThat(copy.getMaximumPoolSize()).isEqualTo(4);
            assertThat(copy.getMinimumIdle()).isEqualTo(1);
            assertThat(copy.getPoolName()).isEqualTo("orders-pool-bizlock");
            assertThat(application.getMaximumPoolSize())
                    .as("the application's pool")
                    .isEqualTo(30);
        }
    }

    @Test
    void aPoolWithoutANameYetGetsBizlocks() {
        try (HikariDataSource application = application()) {
            application.setPoolName(null);
            try (HikariDataSource copy = (HikariDataSource) HikariLockPool.copyOf(application, 2)) {
                assertThat(copy.getPoolName()).isEqualTo("bizlock");
            }
        }
    }

    @Test
    void theIdleCheckIsBoundedToASecondAndAShorterOneIsKept() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:mysql://127.0.0.1:1/app");
        config.setValidationTimeout(5000);
        try (HikariDataSource pool = HikariLockPool.resized(config, 3)) {
            assertThat(pool.getValidationTimeout()).isEqualTo(HikariLockPool.MAX_VALIDATION_MILLIS);
        }
        config.setValidationTimeout(250);
        try (HikariDataSource pool = HikariLockPool.resized(config, 3)) {
            assertThat(pool.getValidationTimeout()).isEqualTo(250);
        }
    }

    @Test
    void theCopyStartsAtItsFirstConnectionNotBefore() {
        try (HikariDataSource application = application()) {
            DataSource copy = HikariLockPool.copyOf(application, 2);
            try (HikariDataSource pool = (HikariDataSource) copy) {
                assertThat(pool.isRunning())
                        .as("started before its first connection")
                        .isFalse();
                assertThat(pool.getInitializationFailTimeout())
                        .as("a database down at start does not fail it")
                        .isEqualTo(-1);
                assertThat(pool.isRegisterMbeans()).isFalse();
            }
        }
    }
}
