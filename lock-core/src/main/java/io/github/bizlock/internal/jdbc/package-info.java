/** JDBC access for the lock engines: the lease table's DAO, the table name, and server detection. */
@NullMarked
package io.github.bizlock.internal.jdbc;

import org.jspecify.annotations.NullMarked;
