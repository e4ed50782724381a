/**
 * What SQL needs from Java: time-ordered ids ({@link Ids}), arrays bound as parameters, calls
 * that arrive together run as one statement ({@link Coalescer}), and the pool's check of a
 * request's deadline as its first connection is handed out ({@link ConnectionDeadline}).
 */
@NamedInterface("sql")
package io.blackboard.platform.sql;

import org.springframework.modulith.NamedInterface;
