package io.github.bizlock.sample.order;

import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.sample.SampleInstance;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class OrderService {

    private final JdbcTemplate jdbc;
    private final SampleInstance instance;

    public OrderService(JdbcTemplate jdbc, SampleInstance instance) {
        this.jdbc = jdbc;
        this.instance = instance;
    }

    /**
     * Creates the order unless one exists for its request id. Check-then-insert is only safe because no other
     * replica runs it for the same request id at the same time; the lock is released after the transaction commits,
     * so the next submit sees the order.
     */
    @DistributedLock(name = "order-submit", key = "#request.requestId", waitTime = "10s")
    @Transactional
    public OrderReceipt submit(OrderRequest request) {
        return createUnlessExists(request);
    }

    /** The same without a lock: submits that arrive together all find no order and all create one. */
    @Transactional
    public OrderReceipt submitUnprotected(OrderRequest request) {
        return createUnlessExists(request);
    }

    private OrderReceipt createUnlessExists(OrderRequest request) {
        List<Long> existing =
                jdbc.queryForList("SELECT id FROM orders WHERE request_id = ?", Long.class, request.requestId());
        if (!existing.isEmpty()) {
            return new OrderReceipt(existing.get(0), false);
        }
        instance.simulateWork(); // a payment check: the window in which a second submit would slip through
        KeyHolder keys = new GeneratedKeyHolder();
        jdbc.update(
                connection -> {
                    PreparedStatement insert = connection.prepareStatement(
                            "INSERT INTO orders (request_id, sku, quantity, created_by) VALUES (?, ?, ?, ?)",
                            Statement.RETURN_GENERATED_KEYS);
                    insert.setString(1, request.requestId());
                    insert.setString(2, request.sku());
                    insert.setInt(3, request.quantity());
                    insert.setString(4, instance.name());
                    return insert;
                },
                keys);
        return new OrderReceipt(Objects.requireNonNull(keys.getKey()).longValue(), true);
    }

    /** How many orders exist for a request id (1 is right; more is a double submit that got through). */
    public int countOrders(String requestId) {
        Integer count =
                jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE request_id = ?", Integer.class, requestId);
        return count == null ? 0 : count;
    }

    /** Orders beyond the first for request ids starting with {@code prefix} (0 is right). */
    public int extraOrders(String prefix) {
        Integer count = jdbc.queryForObject(
                "SELECT COUNT(*) - COUNT(DISTINCT request_id) FROM orders WHERE request_id LIKE CONCAT(?, '%')",
                Integer.class, prefix);
        return count == null ? 0 : count;
    }

    /** Request ids with more than one order. */
    public int duplicateRequests() {
        Integer count = jdbc.queryForObject(
                "SELECT COUNT(*) FROM (SELECT request_id FROM orders GROUP BY request_id HAVING COUNT(*) > 1) d",
                Integer.class);
        return count == null ? 0 : count;
    }
}
