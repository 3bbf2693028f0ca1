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
    public Restock restock(String sku, int quantity, Duration pause) {
        LockHandle lock =
                locks.acquire("stock-restock", sku, LockOptions.defaults().leaseTime(Duration.ofSeconds(2)));
        long token = lock.fencingToken();
        int stock;
        int updated;
        try {
            stock = stock(sku);
            sleep(pause);
            updated = jdbc.update(
                    "UPDATE inventory SET stock = ?, restocked = restocked + ?, fence = ? WHERE sku = ? AND fence < ?",
                    stock + quantity,
                    quantity,
                    token,
                    sku,
                    token);
        } finally {
            try {
                lock.close();
            } catch (LockLostException lost) {
                // The lease ended before the unlock: the write above went through before that, or the fence refused
                // it; either way the data is safe, and the answer below says which.
            }
        }
        if (updated == 0) {
            throw new StaleLockHolderException(
                    sku, token, queryLong("SELECT fence FROM inventory WHERE sku = ?", sku), stock(sku));
        }
        return new Restock(
                sku, true, stock + quantity, token, "Added " + quantity + ", written with fencing token " + token);
    }

    /** Sets a SKU's stock and forgets its reservations, to start a demo run. */
    @Transactional
    public void reset(String sku, int stock) {
        jdbc.update(
                "INSERT INTO inventory (sku, stock, initial_stock) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE"
                        + " stock = VALUES(stock), initial_stock = VALUES(initial_stock), restocked = 0",
                sku,
                stock,
                stock);
        jdbc.update("DELETE FROM reservations WHERE sku = ?", sku);
    }

    public StockReport report(String sku) {
        int initial = queryInt("SELECT initial_stock FROM inventory WHERE sku = ?", sku);
        int left = stock(sku);
        int restocked = queryInt("SELECT restocked FROM inventory WHERE sku = ?", sku);
        int reserved = queryInt("SELECT COALESCE(SUM(quantity), 0) FROM reservations WHERE sku = ?", sku);
        return new StockReport(sku, initial, restocked, left, reserved, Math.max(0, reserved - initial - restocked));
    }

    private int stock(String sku) {
        return queryInt("SELECT stock FROM inventory WHERE sku = ?", sku);
    }

    private long queryLong(String sql, String sku) {
        return query(sql, Long.class, sku).longValue();
    }

    private int queryInt(String sql, String sku) {
        return query(sql, Integer.class, sku).intValue();
    }

    private <T extends Number> Number query(String sql, Class<T> type, String sku) {
        try {
            T value = jdbc.queryForObject(sql, type, sku);
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
