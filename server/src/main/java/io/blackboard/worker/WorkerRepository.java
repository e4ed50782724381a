package io.blackboard.worker;

import java.util.List;
import java.util.UUID;
import org.springframework.data.jpa.repository.JpaRepository;

interface WorkerRepository extends JpaRepository<WorkerRow, UUID> {

    List<WorkerRow> findByDeletedAtIsNullOrderByRegisteredAtAscIdAsc();

    List<WorkerRow> findByStateAndDeletedAtIsNullOrderByRegisteredAtAscIdAsc(WorkerState state);

    List<WorkerRow> findAllByOrderByRegisteredAtAscIdAsc();

    List<WorkerRow> findByStateOrderByRegisteredAtAscIdAsc(WorkerState state);
}
