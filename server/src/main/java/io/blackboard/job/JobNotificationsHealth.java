package io.blackboard.job;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * The {@code notifications} health component, part of readiness: a replica whose LISTEN
 * connection is down would park polls that jobs created on other replicas never wake (they
 * would wait for the periodic re-check), so a load balancer sends it nothing until it listens
 * again. Down while starting, until the listener has connected.
 */
@Component("notificationsHealthIndicator")
class JobNotificationsHealth implements HealthIndicator {

    private final JobNotifications notifications;

    JobNotificationsHealth(JobNotifications notifications) {
        this.notifications = notifications;
    }

    @Override
    public Health health() {
        int pid = notifications.listenerBackendPid();
        return pid != 0 ? Health.up().withDetail("listenerBackendPid", pid).build()
                : Health.down().withDetail("reason", "the job notification listener is not connected").build();
    }
}
