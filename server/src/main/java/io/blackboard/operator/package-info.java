/**
 * What operators see: the live dashboard at {@code /}, its JSON views (workers with their
 * function blocks, recent failures) and the gauges of queue depth, routability and worker
 * states. Reads the other features; nothing depends on it.
 */
package io.blackboard.operator;
