package io.blackboard.functionblock;

import io.blackboard.platform.errors.ApiException;
import org.springframework.http.HttpStatus;

/** A function block declaration that cannot be accepted (for example a schema that is not a schema). */
class InvalidFunctionBlock extends ApiException {

    InvalidFunctionBlock(String detail) {
        super(HttpStatus.UNPROCESSABLE_CONTENT, "invalid-function-block", detail);
    }
}
