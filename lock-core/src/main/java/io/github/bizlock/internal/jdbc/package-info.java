/** JDBC access for the lock engines: the lease table's DAO and the lock tables' DDL. */
@NullMarked
package io.github.bizlock.internal.jdbc;

import org.jspecify.annotations.NullMarked;
