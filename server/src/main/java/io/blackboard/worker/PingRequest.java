package io.blackboard.worker;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.UUID;

/** {@code POST /workers/{id}/ping} body, optional. */
record PingRequest(@Size(max = 10000) List<@NotNull UUID> activeJobIds) {
}
