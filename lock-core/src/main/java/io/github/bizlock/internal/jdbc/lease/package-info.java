/** The LEASE mode: a row per lock with an owner, a fencing token and an expiry in database time. */
@NullMarked
package io.github.bizlock.internal.jdbc.lease;

import org.jspecify.annotations.NullMarked;
