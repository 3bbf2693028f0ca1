/** A scheduled job that runs once per cluster per tick, not once per replica. */
package io.github.bizlock.sample.job;
