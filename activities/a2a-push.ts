/** The body of an A2A push notification: the stream payload of the job's final task (A2A 1.0 §4.3, JSON form). */
import { StreamResponse } from '@a2a-js/sdk';
import type { JobResult } from '../schemas';
import { taskOfResult } from './a2a-task';

/** The JSON text POSTed to an A2A push receiver when the job finishes. */
export function a2aPushBody(jobId: string, contextId: string, result: JobResult): string {
  return JSON.stringify(StreamResponse.toJSON({ payload: { $case: 'task', value: taskOfResult(jobId, contextId, result) } }));
}
