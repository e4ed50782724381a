package io.blackboard.functionblock;

import io.blackboard.platform.errors.ApiException;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpStatus;

/** The same (name, version) was registered before with a different contract. */
class FunctionBlockConflict extends ApiException {

    FunctionBlockConflict(String name, String version, UUID existingId) {
        super(HttpStatus.CONFLICT, "function-block-conflict",
                "Function block %s@%s is already registered with different schemas or pure/idempotent flags; "
                        .formatted(name, version) + "publish the change under a new version",
                Map.of("functionBlockId", existingId));
    }
}
