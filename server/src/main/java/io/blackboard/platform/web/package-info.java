/**
 * The HTTP edge: request size and JSON limits, load shedding, connection bounds, the OpenAPI
 * document, and the version the API reports.
 */
@NamedInterface("web")
package io.blackboard.platform.web;

import org.springframework.modulith.NamedInterface;
