/** A successful TaskResult for unit tests of pure modules, with metrics from the axis table. */
import type { TaskResult } from '../schemas';
import { emptyMetrics } from '../core/task-results';

/** A `sim` subtask's successful result carrying `data`; `extra` overrides any field. */
export const taskResult = (id: string, data: unknown, extra: Partial<TaskResult> = {}): TaskResult => ({
  id,
  agentId: 'sim',
  status: 'success',
  summary: '',
  data,
  evidence: [],
  citations: [],
  followUps: [],
  confidence: 0.9,
  metrics: { ...emptyMetrics(), steps: 1, attempts: 1 },
  failureReason: null,
  errors: [],
  ...extra,
});
