package io.github.bizlock.sample.product;

import java.math.BigDecimal;

/**
 * A product as the cache holds it.
 *
 * @param id its id
 * @param name its name
 * @param price its price
 * @param loads how often it has been loaded from the database so far
 */
public record Product(long id, String name, BigDecimal price, int loads) {}
