/**
 * The record's prune schedule by name (one per deployment): the workers create it, `delegate
 * doctor` (the API) reads it. Apart from names.ts, which the workflows import: no workflow needs it.
 */

/**
 * The prefix of the prune schedule ids and of manual runs' workflow ids; the whole id of the one schedule per
 * namespace that releases before deployment ids made (a second deployment in the namespace took it over).
 */
export const PRUNE_SCHEDULE_ID = 'delegate-record-prune';

/** The prune schedule of the deployment `deploymentId` (its record's id). */
export const pruneScheduleId = (deploymentId: string): string => `${PRUNE_SCHEDULE_ID}-${deploymentId}`;
