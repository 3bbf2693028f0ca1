/** Database sessions held for a lock's lifetime by the ROW and NAMED engines, and ending their waits on time. */
@NullMarked
package io.github.bizlock.internal.jdbc.session;

import org.jspecify.annotations.NullMarked;
