package io.github.bizlock.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.sample.inventory.InventoryService;
import io.github.bizlock.sample.inventory.Restock;
import io.github.bizlock.sample.inventory.StaleLockHolderException;
import io.github.bizlock.sample.inventory.StockReport;
import io.github.bizlock.sample.job.InventoryReportJob;
import io.github.bizlock.sample.order.OrderReceipt;
import io.github.bizlock.sample.order.OrderRequest;
import io.github.bizlock.sample.order.OrderService;
import io.github.bizlock.sample.product.ProductCatalog;
import io.github.bizlock.sample.reference.ReferenceDataSeeder;
import io.github.bizlock.sample.transfer.Transfer;
import io.github.bizlock.sample.transfer.TransferReport;
import io.github.bizlock.sample.transfer.TransferService;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabases;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Each problem of the sample, under concurrency, on a real database; a second replica (another application context on
 * the same database, with its own lock manager) plays the other server where the problem spans replicas.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"sample.embedded-db.enabled=false", "sample.work=10ms", "sample.job.period=1s"})
class SampleGuaranteesTest {

    /** How many rounds the negative control gets to show that the oversell check can fail. */
    private static final int NEGATIVE_CONTROL_ROUNDS = 5;

    static final TestDatabase DATABASE = TestDatabases.create();
    static ConfigurableApplicationContext secondReplica;

    @Autowired
    OrderService orders;

    @Autowired
    InventoryService inventory;

    @Autowired
    ProductCatalog catalog;

    @Autowired
    ReferenceDataSeeder seeder;

    @Autowired
    InventoryReportJob job;

    @Autowired
    TransferService transfers;

    @Autowired
    JdbcTemplate jdbc;

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DATABASE::jdbcUrl);
        registry.add("spring.datasource.username", DATABASE::username);
        registry.add("spring.datasource.password", DATABASE::password);
    }

    @BeforeAll
    static void startSecondReplica() {
        secondReplica = new SpringApplicationBuilder(SampleApplication.class)
                .properties(
                        "server.port=0",
                        "sample.instance-name=second-replica",
                        "sample.embedded-db.enabled=false",
                        "sample.work=10ms",
                        "sample.job.period=1s",
                        "spring.datasource.url=" + DATABASE.jdbcUrl(),
                        "spring.datasource.username=" + DATABASE.username(),
                        "spring.datasource.password=" + DATABASE.password())
                .run();
    }

    @AfterAll
    static void stop() {
        if (secondReplica != null) {
            secondReplica.close();
        }
        DATABASE.close();
    }

    @Test
    void aRequestSubmittedManyTimesAtOnceCreatesOneOrder() throws Exception {
        OrderService other = secondReplica.getBean(OrderService.class);
        OrderRequest request = new OrderRequest("req-" + System.nanoTime(), "PHONE", 1);

        List<OrderReceipt> receipts = concurrently(12, i -> () -> (i % 2 == 0 ? orders : other).submit(request));

        assertThat(orders.countOrders(request.requestId())).isEqualTo(1);
        assertThat(receipts).filteredOn(OrderReceipt::created).hasSize(1);
        assertThat(receipts)
                .extracting(OrderReceipt::orderId)
                .containsOnly(receipts.get(0).orderId());
    }

    @Test
    void tripleSubmitOverHttpCreatesOneOrder() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String requestId = "http-" + System.nanoTime();
        HttpRequest post = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"requestId\":\"" + requestId + "\",\"sku\":\"PHONE\",\"quantity\":1}"))
                .build();

        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            calls.add(http.sendAsync(post, HttpResponse.BodyHandlers.ofString()));
        }
        for (CompletableFuture<HttpResponse<String>> call : calls) {
            assertThat(call.get().statusCode()).isEqualTo(200);
        }

        assertThat(orders.countOrders(requestId)).isEqualTo(1);
    }

    @Test
    void restockOverHttpWritesWithTheFencingToken() throws Exception {
        inventory.reset("SKU-HTTP", 5);
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(post("/inventory/SKU-HTTP/restock?quantity=10&pause=10ms"), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body())
                .contains("\"sku\":\"SKU-HTTP\"", "\"written\":true", "\"stock\":15", "\"fencingToken\":");
        assertThat(jdbc.queryForObject("SELECT fence FROM inventory WHERE sku = 'SKU-HTTP'", Long.class))
                .isPositive();
    }

    @Test
    void protectedReservationsNeverOversell() throws Exception {
        InventoryService other = secondReplica.getBean(InventoryService.class);
        inventory.reset("SKU-LOCKED", 50);

        concurrently(200, i -> () -> (i % 2 == 0 ? inventory : other).reserve("SKU-LOCKED", 1));

        StockReport report = inventory.report("SKU-LOCKED");
        assertThat(report.oversold()).isZero();
        assertThat(report.reserved()).isEqualTo(50);
        assertThat(report.stockLeft()).isZero();
    }

    @Test
    void unprotectedReservationsOversell() throws Exception {
        // Proves the probe can fail: without the lock, requests read the same stock and sell it twice. Whether one
        // round of 200 requests races depends on the scheduler, so the control gets a few rounds; it passes on the
        // first that oversells, and fails only if none does.
        List<StockReport> rounds = new ArrayList<>();
        for (int round = 0; round < NEGATIVE_CONTROL_ROUNDS; round++) {
            inventory.reset("SKU-UNLOCKED", 50);

            concurrently(200, i -> () -> inventory.reserveUnprotected("SKU-UNLOCKED", 1));

            StockReport report = inventory.report("SKU-UNLOCKED");
            if (report.oversold() > 0) {
                assertThat(report.stockLeft() + report.reserved()).isGreaterThan(report.initialStock());
                return;
            }
            rounds.add(report);
        }
        throw new AssertionError("Without the lock, no round of " + NEGATIVE_CONTROL_ROUNDS + " oversold: " + rounds);
    }

    @Test
    void transfersInOppositeDirectionsFromBothReplicasNeverDeadlockAndConserveMoney() throws Exception {
        TransferService other = secondReplica.getBean(TransferService.class);
        transfers.open("ACC-1", 1000);
        transfers.open("ACC-2", 1000);

        // Half go 1 -> 2 and half 2 -> 1, on both replicas: each asks for the two keys in its own order.
        List<Transfer> done = concurrently(
                60,
                i -> () -> (i % 2 == 0 ? transfers : other)
                        .transfer(i % 4 < 2 ? "ACC-1" : "ACC-2", i % 4 < 2 ? "ACC-2" : "ACC-1", 7));

        assertThat(done).allMatch(Transfer::booked);
        TransferReport report = transfers.report(List.of("ACC-1", "ACC-2"));
        assertThat(report.total()).isEqualTo(2000);
        assertThat(report.conserved()).isTrue();
        assertThat(report.transfers()).isEqualTo(60);
    }

    @Test
    void aTransferStormOverHttpReportsNoFailureAndTheMoneyConserved() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        http.send(put("/accounts/STORM-1?balance=50"), HttpResponse.BodyHandlers.ofString());
        http.send(put("/accounts/STORM-2?balance=50"), HttpResponse.BodyHandlers.ofString());

        HttpResponse<String> storm = http.send(
                post("/transfers/storm?from=STORM-1&to=STORM-2&count=40"), HttpResponse.BodyHandlers.ofString());

        assertThat(storm.statusCode()).isEqualTo(200);
        assertThat(storm.body()).contains("\"transfers\":40", "\"failed\":0", "\"total\":100", "\"conserved\":true");
        assertThat(http.send(post("/transfers?from=STORM-1&to=STORM-1&amount=1"), HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .as("a transfer to the same account")
                .isEqualTo(400);
    }

    @Test
    void concurrentCacheMissesLoadTheProductOnce() throws Exception {
        catalog.evictAll();
        int before = loads(2);

        concurrently(16, i -> () -> catalog.find(2));

        assertThat(loads(2)).isEqualTo(before + 1);
    }

    @Test
    void referenceDataIsSeededOnceByTwoReplicas() {
        assertThat(seeder.seedRuns()).isEqualTo(1);
        assertThat(seeder.seedIfEmpty()).isFalse();
        assertThat(secondReplica.getBean(ReferenceDataSeeder.class).seedIfEmpty())
                .isFalse();
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM reference_data", Integer.class))
                .isEqualTo(3);
    }

    @Test
    void theScheduledJobRunsOncePerTickAcrossReplicas() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (job.ticksRun() < 4 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(job.ticksRun()).isGreaterThanOrEqualTo(4);
        assertThat(job.maxRunsPerTick()).isEqualTo(1);
        assertThat(jdbc.queryForList("SELECT DISTINCT instance FROM job_runs", String.class))
                .isNotEmpty();
    }

    @Test
    void aStaleLockHolderCannotOverwriteTheNextHoldersWrite() throws Exception {
        InventoryService other = secondReplica.getBean(InventoryService.class);
        inventory.reset("SKU-FENCED", 5);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            // The first holder stalls for 3 s with a 2 s lease; the second replica gets the lock when the lease ends.
            Future<Restock> stale = pool.submit(() -> inventory.restock("SKU-FENCED", 100, Duration.ofSeconds(3)));
            // The second replica asks only once the first holds the lock, however slowly its thread starts.
            awaitHeld("stock-restock", "SKU-FENCED");
            Restock afterFresh = other.restock("SKU-FENCED", 10, Duration.ZERO);

            assertThat(afterFresh.written()).isTrue();
            assertThat(afterFresh.stock()).isEqualTo(15);
            assertThatThrownBy(stale::get).hasCauseInstanceOf(StaleLockHolderException.class);
            assertThat(inventory.report("SKU-FENCED").stockLeft()).isEqualTo(15);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aStaleRestockOverHttpAnswers409SayingWhy() throws Exception {
        InventoryService other = secondReplica.getBean(InventoryService.class);
        inventory.reset("SKU-STALE-HTTP", 5);
        // The first holder stalls for 3 s with a 2 s lease; the second replica writes when the lease ends.
        CompletableFuture<HttpResponse<String>> stale = HttpClient.newHttpClient()
                .sendAsync(
                        post("/inventory/SKU-STALE-HTTP/restock?quantity=100&pause=3s"),
                        HttpResponse.BodyHandlers.ofString());
        awaitHeld("stock-restock", "SKU-STALE-HTTP");
        Restock fresh = other.restock("SKU-STALE-HTTP", 10, Duration.ZERO);

        HttpResponse<String> response = stale.get();
        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.body())
                .contains("\"written\":false", "\"stock\":15")
                .contains("the stock was last written with token " + fresh.fencingToken() + ", by a newer lock holder")
                .contains("lease ran out");
    }

    @Test
    void restockedUnitsReservedAreNotCountedAsOversold() {
        inventory.reset("SKU-RESTOCKED", 5);
        inventory.restock("SKU-RESTOCKED", 10, Duration.ZERO);
        for (int i = 0; i < 12; i++) {
            assertThat(inventory.reserve("SKU-RESTOCKED", 1).accepted()).isTrue();
        }

        StockReport report = inventory.report("SKU-RESTOCKED");
        assertThat(report.restocked()).isEqualTo(10);
        assertThat(report.reserved()).isEqualTo(12);
        assertThat(report.stockLeft()).isEqualTo(3);
        assertThat(report.oversold()).isZero();
    }

    /** A POST without a body to this replica. */
    private HttpRequest put(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .PUT(HttpRequest.BodyPublishers.noBody())
                .build();
    }

    private HttpRequest post(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
    }

    /** Returns once a LEASE lock is held, or fails after 10 s. */
    private void awaitHeld(String name, String key) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (jdbc.queryForObject(
                        "SELECT COUNT(*) FROM biz_lock WHERE biz_type = ? AND biz_id = ? AND owner_id IS NOT NULL"
                                + " AND expire_at > UTC_TIMESTAMP(6)",
                        Integer.class,
                        name,
                        key)
                == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Lock " + name + "/" + key + " was not taken within 10 s");
            }
            Thread.sleep(10);
        }
    }

    private int loads(long productId) {
        return jdbc.queryForObject("SELECT loads FROM products WHERE id = ?", Integer.class, productId);
    }

    private static <T> List<T> concurrently(int tasks, IntFunction<Callable<T>> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                futures.add(pool.submit(task.apply(i)));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get());
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
