/**
 * Inside a forecast thread (see forecast-thread.ts): forecasts a resolved job and re-plans it,
 * so the Monte Carlo spends this thread's time, never the API's event loop. One request at a
 * time; the pool ends the thread when a request passes its bound.
 */
import { parentPort } from 'node:worker_threads';
import type { ForecastReply, ForecastRequest } from './forecast-thread';
import { forecastWork } from './forecast-thread-replan';

const port = parentPort!;

port.on('message', ({ id, work }: ForecastRequest) => {
  let reply: ForecastReply;
  try {
    reply = { id, ok: true, outcome: forecastWork(work) };
  } catch (err) {
    reply = { id, ok: false, error: (err instanceof Error ? err.message : String(err)).slice(0, 1000) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });
