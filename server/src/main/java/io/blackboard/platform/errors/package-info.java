/**
 * RFC 9457 problems: the {@link ApiException} a feature throws for a refusal it names, {@link
 * BadRequest}, and the handler that answers every failure, framework ones included, as a problem
 * document; a lost database connection is a 503.
 */
@NamedInterface("errors")
package io.blackboard.platform.errors;

import org.springframework.modulith.NamedInterface;
