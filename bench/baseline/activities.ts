/** The baseline's one activity: does nothing, like the `echo` agent's single step. */
export async function noop(input: { i: number }): Promise<{ i: number }> {
  return input;
}
