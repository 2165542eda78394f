/** The worker's side of the `delegateMetrics` sink (contracts/sinks.ts): facts into counters. */
import type { InjectedSinks } from '@temporalio/worker';
import type { DelegateMetricsSinks } from '../contracts/sinks';
import type { WorkerMetrics } from './metrics';

/** The sinks a worker registers as `sinks`; never called on replay, so each fact counts once. */
export function metricsSinks(metrics: WorkerMetrics): InjectedSinks<DelegateMetricsSinks> {
  return {
    delegateMetrics: {
      jobFinished: { fn: (_info, o) => metrics.jobFinished(o), callDuringReplay: false },
      voteDecided: { fn: (_info, d) => metrics.voteDecided(d), callDuringReplay: false },
    },
  };
}
