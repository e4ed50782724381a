package io.blackboard.worker;

import io.blackboard.platform.web.DirectRoute;
import io.blackboard.platform.web.DirectRoutes;
import java.util.UUID;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** A worker's heartbeat (with a body), answered without Spring MVC ({@link DirectRoutes}) by its controller method. */
@Configuration(proxyBeanMethods = false)
class DirectWorkerRoutes {

    @Bean
    DirectRoute<PingRequest> pingRoute(WorkerController controller) {
        // an id that is no UUID throws here, and Spring MVC answers the request as before: 400
        return new DirectRoute<>("/workers/{id}/ping", PingRequest.class, PingReply.class,
                (request, http) -> controller.ping(UUID.fromString(DirectRoutes.segment(http, 2)), request, http));
    }
}
