/** Init once across replicas: reference data seeded by exactly one of several replicas starting together. */
package io.github.bizlock.sample.reference;
