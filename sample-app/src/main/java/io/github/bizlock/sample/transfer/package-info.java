/** Deadlock: transfers between two accounts in both directions, each locking both accounts with a multi-key lock. */
package io.github.bizlock.sample.transfer;
