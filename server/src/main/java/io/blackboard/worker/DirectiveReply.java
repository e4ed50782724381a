package io.blackboard.worker;

import java.util.List;
import java.util.UUID;

/** The directive set, and what it leaves stranded (function blocks with PENDING jobs no one else will run). */
record DirectiveReply(UUID workerId, Directive directive, WorkerState state, List<String> warnings) {
}
