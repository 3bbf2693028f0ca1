package io.github.bizlock.starter;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockTemplate;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * A Spring Boot application with only the starter, a driver and Flyway (what README has applications add),
 * {@code spring.datasource} pointing at the test server and an annotated method: the starter creates the table and the
 * lock keeps concurrent read-modify-writes apart.
 */
@ExtendWith(TestDatabaseExtension.class)
class StarterApplicationTest {

    @SpringBootApplication(proxyBeanMethods = false)
    static class StockApplication {

        @Bean
        Stock stock(JdbcTemplate jdbc) {
            return new Stock(jdbc);
        }
    }

    static class Stock {

        private final JdbcTemplate jdbc;

        Stock(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        /** Takes one unit if any is left: oversells without a lock. */
        @DistributedLock(name = "stock", key = "#sku", waitTime = "60s")
        @Transactional
        public boolean take(String sku) {
            Integer left = jdbc.queryForObject("SELECT quantity FROM stock WHERE sku = ?", Integer.class, sku);
            if (left == null || left <= 0) {
                return false;
            }
            jdbc.update("UPDATE stock SET quantity = ? WHERE sku = ?", left - 1, sku);
            jdbc.update("INSERT INTO sale (sku) VALUES (?)", sku);
            return true;
        }
    }

    private static boolean tableExists(JdbcTemplate jdbc, String table) {
        Integer count = jdbc.queryForObject(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
                Integer.class,
                table);
        return count != null && count > 0;
    }

    @Test
    void locksAnAnnotatedMethodWithNothingButTheStarterAndADataSource(TestDatabase database) throws Exception {
        JdbcTemplate setup = new JdbcTemplate(database.dataSource());
        setup.execute("CREATE TABLE stock (sku VARCHAR(20) PRIMARY KEY, quantity INT NOT NULL)");
        setup.execute("CREATE TABLE sale (id BIGINT AUTO_INCREMENT PRIMARY KEY, sku VARCHAR(20) NOT NULL)");
        setup.update("INSERT INTO stock (sku, quantity) VALUES ('phone', 40)");

        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(StockApplication.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.datasource.url=" + database.jdbcUrl(),
                        "spring.datasource.username=" + database.username(),
                        // No spring.flyway.*: on Spring Boot 3.5, Flyway on the class path would turn on Boot's own
                        // migration of the application's schema, which fails on this one (tables, no history);
                        // bizlock keeps it off for an application without migrations of its own.
                        "spring.datasource.password=" + database.password())
                .run()) {
            JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
            assertThat(tableExists(jdbc, "biz_lock"))
                    .as("lock table created by the starter")
                    .isTrue();
            assertThat(tableExists(jdbc, "biz_lock_migrations")).isTrue();
            assertThat(tableExists(jdbc, "flyway_schema_history"))
                    .as("the application's own Flyway history is not created")
                    .isFalse();
            assertThat(context.getBean(LockTemplate.class)).isNotNull();
            Stock stock = context.getBean(Stock.class);
            assertThat(AopUtils.isAopProxy(stock)).isTrue();

            int threads = 6;
            int attemptsEach = 10;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<Integer>> sold = new ArrayList<>();
            try {
                for (int t = 0; t < threads; t++) {
                    sold.add(pool.submit(() -> {
                        int mine = 0;
                        for (int i = 0; i < attemptsEach; i++) {
                            if (stock.take("phone")) {
                                mine++;
                            }
                        }
                        return mine;
                    }));
                }
                int total = 0;
                for (Future<Integer> future : sold) {
                    total += future.get(5, TimeUnit.MINUTES);
                }
                assertThat(total).isEqualTo(40);
            } finally {
                pool.shutdownNow();
            }
            assertThat(jdbc.queryForObject("SELECT quantity FROM stock WHERE sku = 'phone'", Integer.class))
                    .isZero();
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM sale", Integer.class))
                    .as("no oversell")
                    .isEqualTo(40);
        }
    }
}
