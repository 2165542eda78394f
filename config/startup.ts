/**
 * Configuration errors at a process's start (the environment, the keys file, the agents file
 * and its roles): one line on stderr naming the file, the entry and the field, and exit code 1,
 * never a stack trace. The entry points (api/server.ts, workers/main.ts) load through `orExit`.
 *
 *   load() ──ok──> value
 *          └─throws──> "api: invalid roles in agents file /etc/delegate/agents.json: role "review": agent: unknown agent "x"" ──> exit 1
 */

/** A start-up error as one line: `<proc>: <message>`, a multi-line message's lines joined by "; " after its heading. */
export function startupLine(proc: string, err: unknown): string {
  const [heading = '', ...rest] = (err instanceof Error ? err.message : String(err))
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return `${proc}: ${rest.length > 0 ? `${heading} ${rest.join('; ')}` : heading}`;
}

/** Runs `load` at a process's start; what it throws ends the process with `startupLine` on stderr and exit code 1. */
export function orExit<T>(proc: string, load: () => T): T {
  try {
    return load();
  } catch (err) {
    console.error(startupLine(proc, err));
    process.exit(1);
  }
}
