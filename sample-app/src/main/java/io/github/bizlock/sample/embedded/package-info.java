/** Starts (or joins) an embedded MySQL 8 when no database is configured, so the sample runs with only a JDK. */
package io.github.bizlock.sample.embedded;
