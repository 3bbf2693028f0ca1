/** Oversell: reservations against limited stock, with and without a lock, and a write guarded by a fencing token. */
package io.github.bizlock.sample.inventory;
