/**
 * docker-compose.yml and the deploy/ files it shares with `npm run cluster`, read the way
 * compose reads them: env files with node:util parseEnv, services with their short and long
 * syntaxes normalised (environment as a map, volumes as source/target, commands as one line).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { readEnvFile as readClusterEnvFile } from '../../scripts/temporal-server';

/** The repository's root: docker-compose.yml's directory, which its relative paths start from. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** `deploy/x` for a path under the root, as the messages name files. */
export const rel = (path: string): string => relative(ROOT, resolve(ROOT, path));

/** A file's text; a missing file fails with its name. */
export function readText(path: string): string {
  const full = resolve(ROOT, path);
  if (!existsSync(full)) throw new Error(`${rel(path)} does not exist`);
  return readFileSync(full, 'utf8');
}

/** An env file (`KEY=value`, `#` comments), read by `npm run cluster`'s own reader. */
export function readEnvFile(path: string): Record<string, string> {
  readText(path); // a missing file fails with its name
  return readClusterEnvFile(resolve(ROOT, path));
}

/** One service, normalised. */
export interface Service {
  name: string;
  image?: string;
  /** Env files, relative to the root (`deploy/worker.env`). */
  envFiles: string[];
  /** `environment:` alone, as written (before compose interpolates `${…}`). */
  environment: Record<string, string>;
  /** Bind mounts and volumes: `source` relative to the root for a bind mount (`deploy/temporal`). */
  volumes: { source: string; target: string }[];
  /** `entrypoint` then `command`, joined by spaces. */
  commandLine: string;
  /** `depends_on` as service → condition (`service_started` for the list form). */
  dependsOn: Record<string, string>;
  raw: Record<string, unknown>;
}

const asList = (v: unknown): string[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);

function environmentOf(v: unknown): Record<string, string> {
  if (Array.isArray(v)) {
    return Object.fromEntries(v.map((line: string) => {
      const at = line.indexOf('=');
      return at < 0 ? [line, ''] : [line.slice(0, at), line.slice(at + 1)];
    }));
  }
  return Object.fromEntries(Object.entries((v ?? {}) as Record<string, unknown>).map(([k, x]) => [k, x === null ? '' : String(x)]));
}

function volumesOf(v: unknown): Service['volumes'] {
  return ((v ?? []) as unknown[]).map((entry) => {
    if (typeof entry === 'string') {
      const [source = '', target = ''] = entry.split(':');
      return { source: source.startsWith('.') || source.startsWith('/') ? rel(source) : source, target };
    }
    const { source = '', target = '', type } = entry as { source?: string; target?: string; type?: string };
    return { source: type === 'bind' ? rel(source) : source, target };
  });
}

function dependsOnOf(v: unknown): Record<string, string> {
  if (Array.isArray(v)) return Object.fromEntries(v.map((name: string) => [name, 'service_started']));
  return Object.fromEntries(Object.entries((v ?? {}) as Record<string, { condition?: string }>).map(([k, x]) => [k, x?.condition ?? 'service_started']));
}

/** docker-compose.yml's services by name. */
export function readCompose(path = 'docker-compose.yml'): Map<string, Service> {
  const doc = parse(readText(path)) as { services?: Record<string, Record<string, unknown>> };
  const services = new Map<string, Service>();
  for (const [name, raw] of Object.entries(doc.services ?? {})) {
    services.set(name, {
      name,
      image: typeof raw.image === 'string' ? raw.image : undefined,
      envFiles: asList(raw.env_file).map(rel),
      environment: environmentOf(raw.environment),
      volumes: volumesOf(raw.volumes),
      commandLine: [...asList(raw.entrypoint), ...asList(raw.command)].join(' '),
      dependsOn: dependsOnOf(raw.depends_on),
      raw,
    });
  }
  return services;
}

/** What the process sees: its env files in order, then `environment:` over them. */
export function effectiveEnv(service: Service): Record<string, string> {
  return Object.assign({}, ...service.envFiles.map(readEnvFile), service.environment) as Record<string, string>;
}

/** `image` split into name and tag. */
export function imageParts(image: string): { name: string; tag: string } {
  const at = image.lastIndexOf(':');
  return at < 0 ? { name: image, tag: 'latest' } : { name: image.slice(0, at), tag: image.slice(at + 1) };
}

/** The container path a root-relative file or folder is mounted at, if it is. */
export function mountTarget(service: Service, source: string): string | undefined {
  return service.volumes.find((v) => v.source === rel(source))?.target;
}

/** Whether a root-relative path exists. */
export const exists = (path: string): boolean => existsSync(join(ROOT, path));
