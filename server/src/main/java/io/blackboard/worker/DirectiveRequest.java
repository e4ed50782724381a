package io.blackboard.worker;

import jakarta.validation.constraints.NotNull;

/** {@code PUT /workers/{id}/directive} body. */
record DirectiveRequest(@NotNull Directive directive) {
}
