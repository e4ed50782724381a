package io.blackboard.job;

import io.blackboard.platform.security.WorkerAccess;
import io.blackboard.platform.web.Caller;
import io.blackboard.platform.web.DirectRoutes;
import io.blackboard.platform.web.NextPage;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.UUID;
import org.springframework.http.ResponseEntity;
import org.springframework.lang.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The worker's endpoints (seed 001): poll for jobs, push results. */
@RestController
@Tag(name = "Jobs: worker", description = "Claim jobs and push their results (the worker SDK)")
class WorkerJobController {

    /** A push, a busy worker's round trip and a poll, also answered without Spring MVC: {@link DirectJobRoutes}. */
    static final String PUSH = "/blackboard/job/result";
    static final String NEXT = "/blackboard/job/next";
    static final String POLL = "/blackboard/job";
    static final String PUSH_BATCH = "/blackboard/job/results";
    /** The most pushes one batch push may carry. */
    static final int MAX_BATCH_PUSHES = 1000;

    private final ClaimService claims;
    private final PushService pushes;
    private final NextService next;
    private final ProgressReports progress;
    private final WorkerAccess access;

    WorkerJobController(ClaimService claims, PushService pushes, NextService next, ProgressReports progress,
            WorkerAccess access) {
        this.progress = progress;
        this.claims = claims;
        this.pushes = pushes;
        this.next = next;
        this.access = access;
    }

    @Operation(summary = "Poll: claim jobs", description = "Atomically claims up to limit PENDING jobs of the "
            + "given function blocks (default: all the worker registered) whose selector its labels contain, in "
            + "priority then FIFO order, never past its concurrency. Only an ONLINE worker with directive RUN gets "
            + "jobs. With waitMs it waits for one to appear; [] when none did.")
    @ApiResponse(responseCode = "200", description = "The claimed jobs, each with its attempt and deadline")
    @ApiResponse(responseCode = "404", description = "No such worker (unknown or deleted): register again")
    @ApiResponse(responseCode = "422", description = "A functionBlockId the worker has not registered")
    @ApiResponse(responseCode = "429", description = "BLACKBOARD_MAX_PARKED_POLLS polls wait already on this replica: "
            + "poll again after Retry-After, or without waitMs", headers = @Header(name = "Retry-After",
                    required = true, description = "Seconds to wait", schema = @Schema(type = "integer")))
    @ApiResponse(responseCode = "503", description = "Nothing claimed: the client's deadline (Blackboard-Timeout-Ms, "
            + "or waitMs plus the answer margin) passed before a claim could start")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(examples = @ExampleObject(value = """
            {"workerId": "01a2011d-6ef8-77fd-9a3c-2b4e1f0a7c55", "limit": 1, "waitMs": 20000}""")))
    @PostMapping(POLL)
    List<JobView> poll(@Valid @RequestBody PollRequest request, HttpServletRequest http) throws InterruptedException {
        DirectRoutes.rethrowDirectFailure(http); // what its direct call threw (DirectJobRoutes), answered here
        access.requireMayActAs(request.workerId());
        return claims.poll(request, Caller.of(http));
    }

    @Operation(summary = "Push a result", description = "Only the worker holding the job, at its live attempt, "
            + "may push. The same push again is 200; anything else for a job no longer this worker's live claim is "
            + "409 with the job's state (jobStatus, attempt, outcome, failureReason) and changes nothing.")
    @ApiResponse(responseCode = "200", description = "The pushed job")
    @ApiResponse(responseCode = "404", description = "No such job")
    @ApiResponse(responseCode = "409", description = "Not this worker's live claim, or already pushed otherwise")
    @ApiResponse(responseCode = "422", description = "result does not match the block's resultDataJsonSchema")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(examples = {
        @ExampleObject(name = "success", value = """
                {"jobId": "01a20125-34eb-7000-8a3e-3c1f5e0b9d21", "workerId": "01a2011d-6ef8-77fd-9a3c-2b4e1f0a7c55",
                 "attempt": 1, "status": "SUCCESS", "result": {"lines": 120}}"""),
        @ExampleObject(name = "failure", value = """
                {"jobId": "01a20125-34eb-7000-8a3e-3c1f5e0b9d21", "workerId": "01a2011d-6ef8-77fd-9a3c-2b4e1f0a7c55",
                 "attempt": 1, "status": "FAILURE", "error": {"message": "device refused the session"}}""")}))
    @PostMapping(PUSH)
    JobView push(@Valid @RequestBody PushRequest request, HttpServletRequest http) {
        DirectRoutes.rethrowDirectFailure(http); // what its direct call threw (DirectJobRoutes), answered here
        access.requireMayActAs(request.workerId());
        Caller.of(http).requireWaiting();
        return pushes.push(request);
    }

    @Operation(summary = "Report progress on a held job", description = "A percentage and a short message, on "
            + "the job and in its events; it extends the job's lease as a ping listing it would (never past its "
            + "execution timeout). Fenced as a push: only the live claim's worker, at its attempt. At most one "
            + "report every 2 s per job is recorded; one sooner is answered with recorded false and changes "
            + "nothing.")
    @ApiResponse(responseCode = "200", description = "Recorded, or (recorded false) within 2 s of the last report")
    @ApiResponse(responseCode = "404", description = "No such job")
    @ApiResponse(responseCode = "409", description = "Not this worker's live claim")
    @PostMapping("/blackboard/job/progress")
    ProgressReports.Answer progress(@Valid @RequestBody ProgressRequest request) {
        access.requireMayActAs(request.workerId());
        return progress.report(request);
    }

    /** Many pushes of one worker at once; each item is answered with its own status. */
    @Operation(summary = "Push many results at once", description = "One worker's pushes, landed in one "
            + "statement (two when results must be checked against a resultDataJsonSchema); each item is answered "
            + "with its own status, as a single push would be. Sending a batch again after a lost answer is safe: "
            + "the items that landed answer 200 again.")
    @ApiResponse(responseCode = "200", description = "Each push's outcome, in order")
    @ApiResponse(responseCode = "404", description = "No such worker (unknown or deleted): register again")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(examples = @ExampleObject(value = """
            [{"jobId": "01a20125-34eb-7000-8a3e-3c1f5e0b9d21", "workerId": "01a2011d-6ef8-77fd-9a3c-2b4e1f0a7c55",
              "attempt": 1, "status": "SUCCESS", "result": {"lines": 120}},
             {"jobId": "01a20125-34eb-7000-8a3e-3c1f5e0b9d22", "workerId": "01a2011d-6ef8-77fd-9a3c-2b4e1f0a7c55",
              "attempt": 2, "status": "FAILURE", "error": {"message": "device refused the session"}}]""")))
    @PostMapping(PUSH_BATCH)
    List<PushOutcome> pushBatch(@RequestBody @Size(min = 1, max = MAX_BATCH_PUSHES) List<@Valid @NotNull PushRequest> requests,
            HttpServletRequest http) {
        DirectRoutes.rethrowDirectFailure(http); // what its direct call threw (DirectJobRoutes), answered here
        access.requireMayActAsAll(requests.stream().map(PushRequest::workerId).toList());
        Caller.of(http).requireWaiting();
        return pushes.pushBatch(requests);
    }

    @Operation(summary = "Push results and claim the next jobs, in one round trip", description = "For a busy "
            + "worker: the results it finished (each the body of a single push, naming this worker) land as a batch "
            + "push lands them, each answered on its own; then up to limit (default 1, 0 for none) jobs are claimed "
            + "as a poll claims them, the slots just freed counting, in the same transaction. It never waits: an "
            + "idle worker long-polls POST /blackboard/job. Refused as a whole (nothing pushed, nothing claimed) for "
            + "an unknown or deleted worker (404) or a functionBlockId it has not registered (422).")
    @ApiResponse(responseCode = "200", description = "Each push's outcome, in order, and the claimed jobs")
    @ApiResponse(responseCode = "404", description = "No such worker (unknown or deleted): register again")
    @ApiResponse(responseCode = "422", description = "A functionBlockId the worker has not registered")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(examples = @ExampleObject(value = """
            {"workerId": "01a2011d-6ef8-77fd-9a3c-2b4e1f0a7c55", "limit": 1, "results": [
              {"jobId": "01a20125-34eb-7000-8a3e-3c1f5e0b9d21", "workerId": "01a2011d-6ef8-77fd-9a3c-2b4e1f0a7c55",
               "attempt": 1, "status": "SUCCESS", "result": {"lines": 120}}]}""")))
    @PostMapping(NEXT)
    NextAnswer next(@Valid @RequestBody NextRequest request, HttpServletRequest http) {
        DirectRoutes.rethrowDirectFailure(http); // what its direct call threw (DirectJobRoutes), answered here
        access.requireMayActAs(request.workerId());
        Caller caller = Caller.of(http);
        caller.requireWaiting();
        return next.next(request, caller);
    }

    @Operation(summary = "A worker's jobs", description = "Most recently claimed first; status= filters (any case). "
            + "A full page has a Link header (rel=next) to the next.")
    @ApiResponse(responseCode = "200", description = "A page of the worker's jobs", headers = @Header(name = "Link",
            description = "<the next page's URL>; rel=\"next\", when the page is full"))
    @GetMapping("/workers/{id}/jobs")
    ResponseEntity<List<JobView>> ofWorker(@PathVariable UUID id,
            @RequestParam(required = false) @Nullable String status,
            @RequestParam(required = false) @Nullable String after,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
        List<JobView> jobs = claims.ofWorker(id, status == null ? null : JobStatus.parse(status),
                after == null ? null : JobFilter.Cursor.decode(after), limit + 1);
        return NextPage.of(jobs, limit, job -> new JobFilter.Cursor(job.polledAt(), job.id()).position());
    }
}
