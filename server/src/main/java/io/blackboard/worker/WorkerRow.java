package io.blackboard.worker;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.Formula;
import org.hibernate.annotations.Immutable;

/**
 * The read side of a worker for the registry's list and detail queries. Read-only: every
 * write is one guarded SQL statement in {@link WorkerStore}.
 */
@Entity
@Immutable
@Table(name = "worker")
class WorkerRow {

    @Id
    private UUID id;
    private String name;
    private String hostname;
    private String ip;
    private Integer pid;
    private String version;
    private String sdkName;
    private String sdkVersion;
    @Column(columnDefinition = "jsonb")
    private String labels;
    private int concurrency;
    @Enumerated(EnumType.STRING)
    private WorkerState state;
    @Enumerated(EnumType.STRING)
    private Directive directive;
    private OffsetDateTime registeredAt;
    private OffsetDateTime lastSeenAt;
    private OffsetDateTime stateChangedAt;
    private OffsetDateTime lastPolledAt;
    private OffsetDateTime deletedAt;
    @Formula("(select count(*) from job j where j.worker_id = id and j.status = 'POLLED')")
    private long heldJobs;

    protected WorkerRow() {
    }

    UUID id() { return id; }
    String name() { return name; }
    String hostname() { return hostname; }
    String ip() { return ip; }
    Integer pid() { return pid; }
    String version() { return version; }
    String sdkName() { return sdkName; }
    String sdkVersion() { return sdkVersion; }
    String labels() { return labels; }
    int concurrency() { return concurrency; }
    WorkerState state() { return state; }
    Directive directive() { return directive; }
    OffsetDateTime registeredAt() { return registeredAt; }
    OffsetDateTime lastSeenAt() { return lastSeenAt; }
    OffsetDateTime stateChangedAt() { return stateChangedAt; }
    OffsetDateTime lastPolledAt() { return lastPolledAt; }
    OffsetDateTime deletedAt() { return deletedAt; }
    long heldJobs() { return heldJobs; }
}
