/** The bizlock sample application. */
package io.github.bizlock.sample;
