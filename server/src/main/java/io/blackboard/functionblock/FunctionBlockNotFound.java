package io.blackboard.functionblock;

import io.blackboard.platform.errors.ApiException;
import java.util.UUID;
import org.springframework.http.HttpStatus;

class FunctionBlockNotFound extends ApiException {

    FunctionBlockNotFound(UUID id) {
        super(HttpStatus.NOT_FOUND, "function-block-not-found", "Function block " + id + " is not registered");
    }
}
