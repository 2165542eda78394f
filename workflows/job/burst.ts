/**
 * Once per burst: an activation starts or settles many children in one go, each continuation one
 * microtask after the activation's jobs were applied; work asked for by any of them (render the
 * details, hand over the reports) runs once, one microtask after the first ask, when all have asked.
 */

/** A function that, however often it is called in one burst, runs `fn` once after it. */
export function afterBurst(fn: () => void): () => void {
  let due = false;
  return () => {
    if (due) return;
    due = true;
    void Promise.resolve().then(() => {
      due = false;
      fn();
    });
  };
}
