package io.github.bizlock.sample.product;

import io.github.bizlock.LockTemplate;
import io.github.bizlock.sample.SampleInstance;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.web.server.ResponseStatusException;

/**
 * Products through a cache whose reload is locked per product: when an entry expires under load, one request reloads
 * it and the others wait for the lock and then find it cached, instead of all hitting the database at once.
 */
@Service
public class ProductCatalog {

    private record Entry(Product product, long loadedAtNanos) {}

    private final Map<Long, Entry> cache = new ConcurrentHashMap<>();
    private final JdbcTemplate jdbc;
    private final LockTemplate locks;
    private final SampleInstance instance;
    private final Duration timeToLive;

    public ProductCatalog(
            JdbcTemplate jdbc,
            LockTemplate locks,
            SampleInstance instance,
            @Value("${sample.cache.time-to-live:30s}") Duration timeToLive) {
        this.jdbc = jdbc;
        this.locks = locks;
        this.instance = instance;
        this.timeToLive = timeToLive;
    }

    public Product find(long id) {
        Entry cached = fresh(id);
        if (cached != null) {
            return cached.product();
        }
        return locks.execute("product-cache", Long.toString(id), () -> {
            Entry loadedMeanwhile = fresh(id);
            if (loadedMeanwhile != null) {
                return loadedMeanwhile.product();
            }
            Product product = load(id);
            cache.put(id, new Entry(product, System.nanoTime()));
            return product;
        });
    }

    /** Forgets every cached product, as if their entries had all expired at once. */
    public void evictAll() {
        cache.clear();
    }

    private Entry fresh(long id) {
        Entry entry = cache.get(id);
        return entry != null && System.nanoTime() - entry.loadedAtNanos() < timeToLive.toNanos() ? entry : null;
    }

    private Product load(long id) {
        jdbc.update("UPDATE products SET loads = loads + 1 WHERE id = ?", id);
        instance.simulateWork(); // an expensive query
        try {
            return jdbc.queryForObject(
                    "SELECT id, name, price, loads FROM products WHERE id = ?",
                    (rs, row) -> new Product(
                            rs.getLong("id"), rs.getString("name"), rs.getBigDecimal("price"), rs.getInt("loads")),
                    id);
        } catch (EmptyResultDataAccessException ex) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND, "No product " + id);
        }
    }
}
