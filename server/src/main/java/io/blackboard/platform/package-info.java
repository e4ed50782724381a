/**
 * What every feature uses and none owns, one sub-package per concern: {@code errors},
 * {@code security}, {@code web}, {@code scheduling}, {@code sql}, and {@code embedded} (the
 * development database, which no feature sees). The platform depends on no feature.
 */
package io.blackboard.platform;
