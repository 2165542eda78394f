/** Record statistics for the unit tests of rules that read them (down-shift, forecasts). */
import { addBin, binOf, emptyStats, OUTCOME_BIN, type TaskStats } from '../../core/forecast-sketch';

/** Stats of `runs` subtasks, `failures` of them failed, each costing `usd` in `steps` steps. */
export function statsOf(runs: number, failures: number, usd: number, steps = 1): TaskStats {
  const s = emptyStats();
  addBin(s, 'outcome', OUTCOME_BIN.success, runs - failures);
  if (failures) addBin(s, 'outcome', OUTCOME_BIN.failure, failures);
  addBin(s, 'costMicros', binOf(usd * 1e6), runs);
  addBin(s, 'steps', binOf(steps), runs);
  return s;
}
