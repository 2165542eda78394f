/**
 * The Temporal UI's "current details" of a run, rendered when someone looks rather than each
 * time the run's state changes.
 */
import { setCurrentDetails } from '@temporalio/workflow';

/**
 * Shows `render()` as the run's current details, rendered per look (the UI's metadata query).
 * The SDK answers that query with its payload converter's JSON, which calls a value's `toJSON`:
 * handed an object whose `toJSON` renders, the SDK renders the markdown only when asked, from
 * the state at that moment; rendered on every change instead, a subtask's table was built 3–5
 * times per run and the job's (a walk over every task) once per burst, for a query that is
 * rarely sent. `render` must be pure, as every query handler is.
 */
export function showCurrentDetails(render: () => string): void {
  setCurrentDetails({ toJSON: render } as unknown as string);
}
