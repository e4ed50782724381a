/**
 * What SQL needs from Java: time-ordered ids ({@link Ids}), arrays bound as parameters, and
 * calls that arrive together run as one statement ({@link Coalescer}).
 */
@NamedInterface("sql")
package io.blackboard.platform.sql;

import org.springframework.modulith.NamedInterface;
