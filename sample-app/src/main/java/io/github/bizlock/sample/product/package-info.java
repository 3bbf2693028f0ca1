/** Cache stampede: many concurrent misses of one product reload it from the database once. */
package io.github.bizlock.sample.product;
