/**
 * Start-up: what makes a replica ready in seconds (the training run of the JVM's ahead-of-time
 * cache, docs/operations.md). Nothing outside the platform uses it.
 */
package io.blackboard.platform.startup;
