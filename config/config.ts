import { NativeConnection } from '@temporalio/worker';
import { Connection } from '@temporalio/client';
import { ConfigSchema, type Config } from '../schemas/config';

/** Reads and validates the configuration; throws a message naming each bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

function tlsOptions(config: Config) {
  return config.TEMPORAL_TLS || config.TEMPORAL_API_KEY ? {} : undefined;
}

/** A client connection to Temporal as the configuration says. */
export async function connectClient(config: Config): Promise<Connection> {
  return Connection.connect({ address: config.TEMPORAL_ADDRESS, tls: tlsOptions(config), apiKey: config.TEMPORAL_API_KEY });
}

/** A worker connection to Temporal as the configuration says. */
export async function connectWorker(config: Config): Promise<NativeConnection> {
  return NativeConnection.connect({ address: config.TEMPORAL_ADDRESS, tls: tlsOptions(config), apiKey: config.TEMPORAL_API_KEY });
}
