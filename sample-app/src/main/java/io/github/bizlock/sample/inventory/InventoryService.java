package io.github.bizlock.sample.inventory;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.sample.SampleInstance;
import java.time.Duration;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class InventoryService {

    private final JdbcTemplate jdbc;
    private final LockTemplate locks;
    private final SampleInstance instance;

    public InventoryService(JdbcTemplate jdbc, LockTemplate locks, SampleInstance instance) {
        this.jdbc = jdbc;
        this.locks = locks;
        this.instance = instance;
    }

    /** Reserves stock under the SKU's lock: the read, the check and the write are one step for the whole cluster. */
    @DistributedLock(name = "stock", key = "#sku", waitTime = "30s")
    @Transactional
    public Reservation reserve(String sku, int quantity) {
        return readCheckWrite(sku, quantity);
    }

    /** The same without a lock: concurrent requests read the same stock and each subtracts from it. */
    @Transactional
    public Reservation reserveUnprotected(String sku, int quantity) {
        return readCheckWrite(sku, quantity);
    }

    private Reservation readCheckWrite(String sku, int quantity) {
        int stock = stock(sku);
        if (stock < quantity) {
            return new Reservation(false, stock);
        }
        instance.simulateWork();
        jdbc.update("UPDATE inventory SET stock = ? WHERE sku = ?", stock - quantity, sku);
        jdbc.update("INSERT INTO reservations (sku, quantity) VALUES (?, ?)", sku, quantity);
        return new Reservation(true, stock - quantity);
    }

    /**
     * Adds stock with a write guarded by the lock's fencing token: if this holder stalled past its lease (the pause
     * stands for a GC pause or a slow network) and another holder wrote since, the database refuses the write.
     *
     * @throws StaleLockHolderException if a holder with a newer token wrote first
     */
    public int restock(String sku, int quantity, Duration pause) {
        try (LockHandle lock =
                locks.acquire("stock-restock", sku, LockOptions.defaults().leaseTime(Duration.ofSeconds(2)))) {
            int stock = stock(sku);
            sleep(pause);
            int updated = jdbc.update(
                    "UPDATE inventory SET stock = ?, fence = ? WHERE sku = ? AND fence < ?",
                    stock + quantity,
                    lock.fencingToken(),
                    sku,
                    lock.fencingToken());
            if (updated == 0) {
                throw new StaleLockHolderException(sku, lock.fencingToken());
            }
            return stock + quantity;
        } catch (LockLostException lost) {
            // The write above went through before the lease ended, or was refused; either way the data is safe.
            return stock(sku);
        }
    }

    /** Sets a SKU's stock and forgets its reservations, to start a demo run. */
    @Transactional
    public void reset(String sku, int stock) {
        jdbc.update(
                "INSERT INTO inventory (sku, stock, initial_stock) VALUES (?, ?, ?)"
                        + " ON DUPLICATE KEY UPDATE stock = VALUES(stock), initial_stock = VALUES(initial_stock)",
                sku,
                stock,
                stock);
        jdbc.update("DELETE FROM reservations WHERE sku = ?", sku);
    }

    public StockReport report(String sku) {
        int initial = queryInt("SELECT initial_stock FROM inventory WHERE sku = ?", sku);
        int left = stock(sku);
        int reserved = queryInt("SELECT COALESCE(SUM(quantity), 0) FROM reservations WHERE sku = ?", sku);
        return new StockReport(sku, initial, left, reserved, Math.max(0, reserved - initial));
    }

    private int stock(String sku) {
        return queryInt("SELECT stock FROM inventory WHERE sku = ?", sku);
    }

    private int queryInt(String sql, String sku) {
        try {
            Integer value = jdbc.queryForObject(sql, Integer.class, sku);
            return value == null ? 0 : value;
        } catch (EmptyResultDataAccessException ex) {
            throw new UnknownSkuException(sku);
        }
    }

    private static void sleep(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", ex);
        }
    }
}
