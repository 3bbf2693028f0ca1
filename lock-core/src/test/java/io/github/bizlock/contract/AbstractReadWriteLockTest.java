package io.github.bizlock.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.Await;
import io.github.bizlock.LockAccess;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.service.LockService;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the read-write lock ({@link LockAccess}) promises in a mode, on a real MySQL 8 or MariaDB, with instances
 * assembled as the starter assembles them: readers share, a writer is alone (across processes too), a writer waiting
 * behind a stream of readers gets in within a bound, a crashed reader frees its share, read tokens are the last
 * writer's, an upgrade is refused at once with nothing held. A mode's subclass names the mode.
 */
@ExtendWith(TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractReadWriteLockTest {

    /** The bound a writer behind a continuous stream of readers gets in within (README, docs/read-write.md). */
    static final Duration WRITER_BOUND = Duration.ofSeconds(5);

    static final LockOptions READ = LockOptions.defaults().access(LockAccess.READ);
    static final LockOptions WRITE = LockOptions.defaults();

    private final List<LockService> services = new ArrayList<>();
    protected String name = "rw";

    protected abstract LockMode mode();

    /** How long a crashed reader keeps writers out at most. */
    protected abstract Duration crashBound();

    @BeforeAll
    void createSchema(DataSource dataSource) {
        ContractManagers.createSchema(mode(), dataSource);
    }

    @BeforeEach
    void nameLocksAfterTest(TestInfo test) {
        name = test.getTestMethod().orElseThrow().getName();
    }

    @AfterEach
    void closeServices() {
        services.forEach(LockService::close);
        services.clear();
    }

    /** The template of another instance (process) on the database. */
    protected LockTemplate instance(DataSource dataSource) {
        LockService service = ReadWriteWorkload.service(dataSource, mode(), Duration.ofSeconds(30));
        services.add(service);
        return service.template();
    }

    /** Whether {@code locks} gets the key's lock with the options right now, asked on a thread of its own. */
    protected boolean freeFor(LockTemplate locks, LockOptions options) {
        return CompletableFuture.supplyAsync(
                        () -> {
                            Optional<LockHandle> handle = locks.tryAcquire(name, "k", options.waitTime(Duration.ZERO));
                            handle.ifPresent(LockHandle::unlock);
                            return handle.isPresent();
                        },
                        ThreadPerTask.EXECUTOR)
                .join();
    }

    @Test
    void readersOfTwoInstancesShareAndKeepWritersOut(DataSource dataSource) {
        LockTemplate a = instance(dataSource);
        LockTemplate b = instance(dataSource);
        LockTemplate writer = instance(dataSource);
        try (LockHandle first = a.acquire(name, "k", READ);
                LockHandle second = b.acquire(name, "k", READ.waitTime(Duration.ZERO))) {
            assertThat(first.access()).isEqualTo(LockAccess.READ);
            assertThat(second.isHeld()).isTrue();
            assertThat(freeFor(writer, WRITE)).as("a writer while two read").isFalse();
        }
        assertThat(freeFor(writer, WRITE)).as("a writer once both readers left").isTrue();
    }

    @Test
    void aWriterKeepsReadersAndWritersOut(DataSource dataSource) {
        LockTemplate a = instance(dataSource);
        LockTemplate b = instance(dataSource);
        try (LockHandle write = a.acquire(name, "k", WRITE)) {
            assertThat(write.access()).isEqualTo(LockAccess.WRITE);
            assertThat(freeFor(b, READ))
                    .as("a reader while another instance writes")
                    .isFalse();
            assertThat(freeFor(b, WRITE))
                    .as("a writer while another instance writes")
                    .isFalse();
            assertThat(freeFor(a, READ))
                    .as("a reader of the writing instance, on another thread")
                    .isFalse();
        }
        assertThat(freeFor(b, READ)).isTrue();
    }

    @Test
    void readTokensAreTheLastWritersAndBelowTheNextOne(DataSource dataSource) {
        LockTemplate a = instance(dataSource);
        LockTemplate b = instance(dataSource);
        long written;
        try (LockHandle write = a.acquire(name, "k", WRITE)) {
            written = write.fencingToken();
        }
        long read;
        try (LockHandle first = b.acquire(name, "k", READ)) {
            read = first.fencingToken();
            assertThat(read).as("a read token is the last writer's").isEqualTo(written);
        }
        try (LockHandle next = b.acquire(name, "k", WRITE)) {
            assertThat(next.fencingToken()).as("the next writer's token").isGreaterThan(read);
        }
    }

    @Test
    void anUpgradeIsRefusedAtOnceAndLeavesTheReadLockAsItWas(DataSource dataSource) {
        LockTemplate a = instance(dataSource);
        LockTemplate b = instance(dataSource);
        try (LockHandle read = a.acquire(name, "k", READ)) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> a.acquire(name, "k", WRITE.waitTime(Duration.ofSeconds(30))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("holds the read lock")
                    .hasMessageContaining("never upgraded");
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .as("refused, not waited for")
                    .isLessThan(Duration.ofSeconds(5));
            assertThat(read.isHeld()).isTrue();
            assertThat(freeFor(b, READ)).as("other readers still share it").isTrue();
            assertThat(freeFor(b, WRITE)).as("writers are still kept out").isFalse();
        }
        assertThat(freeFor(b, WRITE))
                .as("nothing of the refused upgrade left behind")
                .isTrue();
    }

    @Test
    void aReadLockIsReentrantAndFreedByTheLastUnlock(DataSource dataSource) {
        LockTemplate a = instance(dataSource);
        LockTemplate b = instance(dataSource);
        LockHandle outer = a.acquire(name, "k", READ);
        LockHandle inner = a.acquire(name, "k", READ);
        inner.unlock();
        assertThat(freeFor(b, WRITE)).as("still read by the outer hold").isFalse();
        outer.unlock();
        assertThat(freeFor(b, WRITE)).isTrue();
        assertThatThrownBy(outer::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void aReadingThreadThatEndsWithoutUnlockingFreesItsShare(DataSource dataSource) throws Exception {
        LockTemplate a = instance(dataSource);
        LockTemplate b = instance(dataSource);
        Thread reader = new Thread(() -> a.acquire(name, "k", READ), "reader-that-ends");
        reader.start();
        reader.join(30_000);
        assertThat(reader.isAlive()).isFalse();
        Optional<LockHandle> written = b.tryAcquire(name, "k", WRITE.waitTime(Duration.ofSeconds(10)));
        assertThat(written)
                .as("written after the ended reader's share was freed")
                .isPresent();
        written.get().unlock();
    }

    @Test
    void aWriterBehindAContinuousStreamOfReadersGetsInWithinTheBound(DataSource dataSource) throws Exception {
        // Two instances, two threads each, read in overlapping holds without a pause: the key always has a reader.
        List<LockTemplate> readers = List.of(instance(dataSource), instance(dataSource));
        LockTemplate writer = instance(dataSource);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        List<CompletableFuture<Void>> streams = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            LockTemplate locks = readers.get(i % 2);
            streams.add(CompletableFuture.runAsync(
                    () -> {
                        while (!stop.get()) {
                            try (LockHandle ignored = locks.acquire(name, "k", READ.waitTime(Duration.ofSeconds(30)))) {
                                reads.incrementAndGet();
                                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(60));
                            }
                        }
                    },
                    ThreadPerTask.EXECUTOR));
        }
        try {
            Await.until("the readers' stream began", Duration.ofSeconds(30), () -> reads.get() >= 8);
            Optional<LockHandle> written = writer.tryAcquire(name, "k", WRITE.waitTime(WRITER_BOUND));
            assertThat(written).as("the writer got in within " + WRITER_BOUND).isPresent();
            int readsWhileWriting = reads.get();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            assertThat(reads.get())
                    .as("no reader came in while the writer held")
                    .isEqualTo(readsWhileWriting);
            written.get().unlock();
        } finally {
            stop.set(true);
            CompletableFuture.allOf(streams.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        }
        assertThat(reads.get()).as("readers went on after the writer").isGreaterThan(8);
    }

    /** Waits until the writer waits where new readers see it: its intent (LEASE), its row lock request (ROW). */
    protected abstract void awaitWriterWaiting(DataSource dataSource) throws InterruptedException;

    @Test
    void aWaitingWriterKeepsNewReadersOut(DataSource dataSource) throws Exception {
        LockTemplate a = instance(dataSource);
        LockTemplate b = instance(dataSource);
        LockTemplate c = instance(dataSource);
        LockHandle read = a.acquire(name, "k", READ);
        CompletableFuture<Boolean> writer = CompletableFuture.supplyAsync(
                () -> {
                    Optional<LockHandle> written = b.tryAcquire(name, "k", WRITE.waitTime(Duration.ofSeconds(30)));
                    written.ifPresent(LockHandle::unlock);
                    return written.isPresent();
                },
                ThreadPerTask.EXECUTOR);
        try {
            try {
                awaitWriterWaiting(dataSource);
            } catch (AssertionError notWaiting) {
                throw new AssertionError(notWaiting.getMessage() + "; the writer: "
                        + (writer.isDone()
                                ? writer.handle((done, failed) -> done + " " + failed)
                                        .join()
                                : "running"));
            }
            assertThat(freeFor(c, READ))
                    .as("a new reader while a writer waits for the reader before it")
                    .isFalse();
        } finally {
            read.unlock();
        }
        assertThat(writer.get(30, TimeUnit.SECONDS))
                .as("the writer got in after the reader")
                .isTrue();
        assertThat(freeFor(c, READ))
                .as("readers come in again after the writer")
                .isTrue();
    }

    @Tag("cross-jvm")
    @Test
    void readersAndWritersOfTwoJvmsNeverOverlapAndTokensKeepOrder(TestDatabase database) throws Exception {
        int threads = 4;
        int ops = 40;
        DataSource dataSource = database.dataSource();
        ReadWriteWorkload.createProbe(dataSource);
        LockTemplate locks = instance(dataSource);
        try (ChildJvm child = ReadWriteWorker.start(
                database, mode(), name, Duration.ofSeconds(30), "mix", String.valueOf(threads), String.valueOf(ops))) {
            child.await("READY", Duration.ofSeconds(60));
            child.send("GO");
            ReadWriteWorkload.Result mine = ReadWriteWorkload.run(locks, dataSource, name, threads, ops);
            ReadWriteWorkload.Result theirs =
                    ReadWriteWorkload.Result.fromLine(child.await("DONE", Duration.ofSeconds(300)));
            System.out.printf("read-write mix (%s): %s here, %s in the child%n", mode(), mine, theirs);
            for (ReadWriteWorkload.Result result : List.of(mine, theirs)) {
                assertThat(result.failures()).as("failed holds").isZero();
                assertThat(result.overlaps()).as("a writer with anyone else").isZero();
                assertThat(result.tokenErrors()).as("tokens out of order").isZero();
                assertThat(result.reads() + result.writes()).isEqualTo(threads * ops);
            }
            assertThat(mine.writes() + theirs.writes()).as("writes happened").isPositive();
        }
    }

    @Tag("cross-jvm")
    @Test
    void aKilledReaderFreesItsShareWithinItsBound(TestDatabase database) throws Exception {
        LockTemplate writer = instance(database.dataSource());
        try (ChildJvm child = ReadWriteWorker.start(database, mode(), name, Duration.ofSeconds(2), "read")) {
            child.await("ACQUIRED", Duration.ofSeconds(60));
            assertThat(writer.tryAcquire(name, "probe", Duration.ZERO))
                    .as("kept out by the live reader")
                    .isEmpty();
            child.kill();
            long killed = System.nanoTime();
            Optional<LockHandle> taken = writer.tryAcquire(name, "probe", crashBound());
            Duration waited = Duration.ofNanos(System.nanoTime() - killed);
            assertThat(taken)
                    .as("written within " + crashBound() + " of the kill")
                    .isPresent();
            System.out.printf(
                    "read-write (%s): a killed reader's share freed after %d ms%n", mode(), waited.toMillis());
            taken.get().unlock();
        }
    }
}
