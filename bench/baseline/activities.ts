/** The baseline's one activity: does nothing, like the `echo` agent's single step. */
export async function noop(input: { i: number }): Promise<{ i: number }> {
  return input;
}

/** The shaped baseline's activity (bench/engine-share.ts): takes a padded input and answers with `reply` characters. */
export async function noopPadded(input: { i: number; pad: string; reply: number }): Promise<{ i: number; pad: string }> {
  return { i: input.i, pad: 'x'.repeat(input.reply) };
}
