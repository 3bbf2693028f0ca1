/** Housekeeping: deletes lock rows unused for longer than a retention, on one instance at a time. */
@NullMarked
package io.github.bizlock.internal.housekeeping;

import org.jspecify.annotations.NullMarked;
