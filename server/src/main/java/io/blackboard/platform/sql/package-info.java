/**
 * What SQL needs from Java: time-ordered ids ({@link Ids}) and arrays bound as parameters.
 */
@NamedInterface("sql")
package io.blackboard.platform.sql;

import org.springframework.modulith.NamedInterface;
