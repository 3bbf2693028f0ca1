/** Double submit: the same client request id submitted several times at once creates one order. */
package io.github.bizlock.sample.order;
