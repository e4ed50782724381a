/**
 * The embedded PostgreSQL the server starts when no datasource is configured, for development
 * and trials; refused in production. Nothing outside the platform uses it.
 */
package io.blackboard.platform.embedded;
