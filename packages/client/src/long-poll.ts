/**
 * A wait longer than the API holds one request: long polls of at most 60 s each, until an
 * answer is final or the caller's wait has passed.
 *
 *   poll(min(60, left)) ──final──> answer
 *        ^                 └─not final, time left, the server held the poll──┐
 *        └─────────────────────────────────────────────────────────────────┘
 */

/** The longest wait the API holds one request open. */
export const MAX_WAIT_SECONDS = 60;

/** Seconds as the API's `waitSeconds` takes them (tenths). */
const tenths = (s: number) => Math.round(Math.max(0, s) * 10) / 10;

/**
 * Polls with `poll(seconds)` until `final(answer)` holds or `waitSeconds` has passed; the last
 * answer. A poll the server answered early without a final answer ends the wait too: nothing
 * is left to wait for (say a scout whose job ended but that waits for a commit by hand).
 */
export async function longPoll<T>(waitSeconds: number, poll: (seconds: number) => Promise<T>, final: (answer: T) => boolean): Promise<T> {
  const deadline = Date.now() + Math.max(0, waitSeconds) * 1000;
  for (;;) {
    const asked = tenths(Math.min(MAX_WAIT_SECONDS, (deadline - Date.now()) / 1000));
    const began = Date.now();
    const answer = await poll(asked);
    if (final(answer) || Date.now() >= deadline) return answer;
    // answered well before the wait it was given: the server had nothing more to wait for
    if (Date.now() - began < asked * 1000 - 500) return answer;
  }
}
