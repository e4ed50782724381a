/**
 * The log's own metrics: {@code logback.events} counted by an appender, not by Micrometer's
 * turbo filter, which every level check of every logger passed through.
 */
package io.blackboard.platform.logging;
