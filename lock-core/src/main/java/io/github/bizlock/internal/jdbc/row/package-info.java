/** ROW mode: {@code SELECT ... FOR UPDATE} in a transaction kept open on a session held for the lock's lifetime. */
@NullMarked
package io.github.bizlock.internal.jdbc.row;

import org.jspecify.annotations.NullMarked;
