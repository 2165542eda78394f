/**
 * The estimate operation: the checks of a submission (quotas, callback URL, agents, params,
 * output schemas), then the forecast of the spec from the tenant's record. Nothing starts.
 */
import { netPolicyFromConfig } from '../../activities';
import type { Estimate, JobSpec } from '../../schemas';
import { createForecaster } from '../forecast';
import type { JobServiceDeps } from './handles';
import { checkSubmission } from './submit-checks';

/** Creates `estimate(tenant, spec)`. */
export function createEstimate(deps: JobServiceDeps) {
  const forecaster = createForecaster(deps);
  const netPolicy = netPolicyFromConfig(deps.config);
  return async function estimate(tenant: string, spec: JobSpec, o: { windowDays?: number } = {}): Promise<Estimate> {
    await checkSubmission(deps, netPolicy, tenant, spec);
    return forecaster.estimate(tenant, spec, o);
  };
}
