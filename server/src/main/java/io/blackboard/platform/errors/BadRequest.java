package io.blackboard.platform.errors;

import org.springframework.http.HttpStatus;

/** A request that is well-formed JSON but asks for something invalid (a bad filter, a bad field value). */
public class BadRequest extends ApiException {

    public BadRequest(String detail) {
        super(HttpStatus.BAD_REQUEST, "invalid-request", detail);
    }
}
