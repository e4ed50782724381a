package io.blackboard.platform.web;

import jakarta.servlet.http.HttpServletRequest;
import java.lang.reflect.Type;

/**
 * A hot endpoint answered without Spring MVC ({@link DirectRoutes}): a JSON body read as
 * {@code body}, handed to {@code handler} (the controller's own method), its answer written as
 * JSON with status 200 (or, for a {@code ResponseEntity}, with its status and headers, its body
 * written by its own type). Whatever the direct way does not answer goes on to Spring MVC as before.
 *
 * @param path the request path, exactly, or with variables such as {@code /workers/{id}/ping}, each
 *     one segment (the handler reads it: {@link DirectRoutes#segment}); the method is POST
 * @param body the body's type ({@code T}'s: a class, or a parameterized type such as a list of
 *     requests), validated as {@code @Valid} would; a list's items each, none of them null
 * @param answer the answer's type ({@code Object} for a {@code ResponseEntity})
 * @param handler the controller method; the first thing it runs through Spring MVC is
 *     {@link DirectRoutes#rethrowDirectFailure}
 */
public record DirectRoute<T>(String path, Type body, Class<?> answer, Handler<T> handler) {

    /** The controller method: the body, valid, and the request. */
    @FunctionalInterface
    public interface Handler<T> {
        Object answer(T body, HttpServletRequest request);
    }
}
