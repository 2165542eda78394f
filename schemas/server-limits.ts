/**
 * The API server's connection limits, as configuration variables (part of `ConfigSchema`): what
 * one peer, or a crowd of sockets that never finish a request, may hold before authentication.
 *
 *   connect ──maxConnections──per peer──> headers (headersTimeout) ──> body (requestTimeout) ──> handler ──> keep-alive (keepAliveTimeout)
 *                                                        no byte either way for connectionIdle ──> closed
 */
import { z } from 'zod';

/** Seconds, fractions allowed (tests use short ones); `max` bounds a typo, not a policy. */
const seconds = (max: number) => z.coerce.number().positive().max(max);
/** A count where 0 turns the limit off. */
const countOrOff = z.coerce.number().int().min(0).max(1_000_000);

/** The variables, spread into `ConfigSchema` (docs/reference/configuration.md lists them with the rest). */
export const SERVER_LIMITS_ENV = {
  DELEGATE_MAX_CONNECTIONS: z.coerce
    .number()
    .int()
    .positive()
    .max(1_000_000)
    .default(10_000)
    .describe(
      "open connections the API accepts at once; past it new ones are closed at once (keep it below the process's open-files limit, `ulimit -n`, so a flood never starves the record and Temporal of descriptors)",
    ),
  DELEGATE_MAX_CONNECTIONS_PER_PEER: countOrOff
    .default(256)
    .describe(
      "open connections one client address (an IPv6 /64) may hold; past it its new ones are closed at once; 0: no cap. Behind a reverse proxy every connection comes from the proxy's address: cap per client at the proxy, and set 0 here or what the proxy needs",
    ),
  DELEGATE_HEADERS_TIMEOUT_SECONDS: seconds(300)
    .default(10)
    .describe(
      'a connection must send a whole request head this soon after it opens (or after its next request starts); else 408 and closed',
    ),
  DELEGATE_REQUEST_TIMEOUT_SECONDS: seconds(3600)
    .default(60)
    .describe(
      'a request must arrive whole (head and body) this soon; else 408 and closed (the answer may take longer: long polls, streams)',
    ),
  DELEGATE_KEEP_ALIVE_TIMEOUT_SECONDS: seconds(3600)
    .default(10)
    .describe("an idle keep-alive connection is closed after this; behind a load balancer, set it above the balancer's idle timeout"),
  DELEGATE_CONNECTION_IDLE_SECONDS: z.coerce
    .number()
    .min(0)
    .max(86_400)
    .default(300)
    .describe(
      'a connection with no byte either way for this long is closed, also mid-answer (a client that stopped reading a stream); SSE and A2A event streams send a comment every 15 s; 0: never',
    ),
  DELEGATE_MAX_REQUESTS_PER_SOCKET: countOrOff
    .default(0)
    .describe(
      'requests one keep-alive connection may carry (its last answer says `Connection: close`; Node answers any later one on it with 503, which clients that ignore the header, load generators among them, count as errors); 0: no cap',
    ),
};
