/**
 * The Open Job Spec HTTP binding (docs/ojs.md): OJS producers and workers use Blackboard under
 * {@code /ojs/v1}, as a thin mapping onto the native model. An OJS job is a job of the job table
 * (its type a function block, its queue and envelope kept beside it), claimed, pushed, swept and
 * audited as native jobs are; an OJS worker is a worker of its own, made on its first call.
 * Depends on the job, worker and function block features; nothing depends on it.
 */
package io.blackboard.ojs;
