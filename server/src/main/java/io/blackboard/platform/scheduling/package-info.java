/**
 * Periodic maintenance: the {@link Sweeper} contract a feature implements, and the scheduler that
 * runs, times and counts every sweeper on its own thread.
 */
@NamedInterface("scheduling")
package io.blackboard.platform.scheduling;

import org.springframework.modulith.NamedInterface;
