/**
 * docker-compose.yml stays honest: it runs the production shape `npm run cluster` runs, from the
 * same files. Schema → plain Temporal server → namespace and search attributes → API and workers;
 * the server's config, settings, dynamic config and setup script are deploy/'s; the versions are
 * scripts/versions.ts's; the worker's and API's settings are deploy/worker.env and deploy/api.env,
 * in keys the config schema knows. Each failure names the file and the key.
 */
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../schemas/config';
import { TEMPORAL_SERVER_VERSION, TEMPORAL_UI_VERSION } from '../../scripts/versions';
import { TRACING_ENV_KEYS } from '../../telemetry/tracing';
import { loadConfig } from '../../config/config';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../core/search-attributes';
import { effectiveEnv, exists, imageParts, mountTarget, readCompose, readEnvFile, readText, type Service } from './compose-file';

const COMPOSE = 'docker-compose.yml';
const TEMPORAL_ENV = 'deploy/temporal.env';
const WORKER_ENV = 'deploy/worker.env';
const API_ENV = 'deploy/api.env';
const SERVER_CONFIG_DIR = 'deploy/temporal';
const DYNAMIC_CONFIG = 'deploy/temporal-dynamicconfig.yaml';
const SETUP_SCRIPT = 'deploy/temporal-setup.sh';
/** Settings the API and the workers must agree on (schemas/config.ts says why for each). */
const SHARED_KEYS = ['TEMPORAL_NAMESPACE', 'DELEGATE_TASK_QUEUE', 'DELEGATE_WORKER_SLOTS', 'DELEGATE_BREAKER_FAILURES', 'DELEGATE_BREAKER_COOLDOWN_SECONDS', 'DELEGATE_SCOUT_ROOT'];
/** A secret for `${DELEGATE_WEBHOOK_SECRET:?…}`, which compose takes from the shell. */
const SECRET = 'compose-test-webhook-secret';

const services = readCompose(COMPOSE);
const bare = (v: string) => v.replace(/^v/, '');

function service(name: string): Service {
  const s = services.get(name);
  if (!s) throw new Error(`${COMPOSE}: no service "${name}"`);
  return s;
}
/** The one service whose command line runs the setup script with `mode`. */
function setupService(mode: 'schema' | 'namespace'): Service {
  const found = [...services.values()].filter((s) => new RegExp(`temporal-setup\\.sh ${mode}$`).test(s.commandLine));
  if (found.length !== 1) throw new Error(`${COMPOSE}: ${found.length} services run temporal-setup.sh ${mode}, want 1`);
  return found[0]!;
}
/** The env a process sees, with compose's `${VAR:?…}` secrets filled in. */
const processEnv = (s: Service) => Object.fromEntries(Object.entries(effectiveEnv(s)).map(([k, v]) => [k, v.replace(/\$\{DELEGATE_WEBHOOK_SECRET[^}]*\}/g, SECRET)]));

const temporal = service('temporal');
const schema = setupService('schema');
const namespace = setupService('namespace');
const apps = [
  { s: service('worker'), envFile: WORKER_ENV },
  { s: service('api'), envFile: API_ENV },
];
const temporalEnv = readEnvFile(TEMPORAL_ENV);
const clusterTemplate = readText(`${SERVER_CONFIG_DIR}/cluster.yaml`);
/** The frontend's gRPC port: the server's environment, else the template's default. */
const frontendPort = temporal.environment.FRONTEND_GRPC_PORT ?? /env "FRONTEND_GRPC_PORT" \| default "(\d+)"/.exec(clusterTemplate)?.[1];

describe('docker-compose.yml runs the pinned Temporal versions', () => {
  const temporalImages = [...services.values()].filter((s) => s.image?.startsWith('temporalio/'));

  it.each(temporalImages.map((s) => [s.name, s.image!]))('%s: %s', (name, image) => {
    const { name: repo, tag } = imageParts(image);
    const where = `${COMPOSE}: services.${name}.image`;
    if (repo === 'temporalio/server') expect(tag, `${where}: TEMPORAL_SERVER_VERSION (scripts/versions.ts)`).toBe(bare(TEMPORAL_SERVER_VERSION));
    else if (repo === 'temporalio/admin-tools') expect(tag.split('-')[0], `${where}: its server version, TEMPORAL_SERVER_VERSION (scripts/versions.ts)`).toBe(bare(TEMPORAL_SERVER_VERSION));
    else if (repo === 'temporalio/ui') expect(tag, `${where}: TEMPORAL_UI_VERSION (scripts/versions.ts)`).toBe(bare(TEMPORAL_UI_VERSION));
    else expect.fail(`${where}: ${repo} is not the plain server, admin-tools or the UI (deploy/temporal-setup.sh sets the cluster up, as in npm run cluster)`);
  });

  it('has the server, admin-tools and the UI', () => {
    const repos = new Set(temporalImages.map((s) => imageParts(s.image!).name));
    for (const repo of ['temporalio/server', 'temporalio/admin-tools', 'temporalio/ui']) expect(repos.has(repo), `${COMPOSE}: no service runs ${repo}`).toBe(true);
  });
});

describe("docker-compose.yml's Temporal is deploy/'s", () => {
  it('the server, the schema and the namespace read deploy/temporal.env', () => {
    for (const s of [temporal, schema, namespace]) expect(s.envFiles, `${COMPOSE}: services.${s.name}.env_file`).toContain(TEMPORAL_ENV);
  });

  it('the server runs deploy/temporal/<env>.yaml, mounted where --root and --config say', () => {
    const flag = (name: string) => new RegExp(`--${name} (\\S+)`).exec(temporal.commandLine)?.[1];
    const [root, config, env] = [flag('root'), flag('config'), flag('env')];
    expect(temporal.commandLine, `${COMPOSE}: services.temporal.command: temporal-server … start`).toMatch(/\btemporal-server\b.* start\b/);
    expect(root && config && env, `${COMPOSE}: services.temporal.command: --root, --config and --env`).toBeTruthy();
    expect(mountTarget(temporal, SERVER_CONFIG_DIR), `${COMPOSE}: services.temporal.volumes: ${SERVER_CONFIG_DIR} at --root/--config`).toBe(`${root!.replace(/\/$/, '')}/${config}`.replace(/^\/\//, '/'));
    expect(exists(`${SERVER_CONFIG_DIR}/${env}.yaml`), `${COMPOSE}: services.temporal.command: --env ${env} but no ${SERVER_CONFIG_DIR}/${env}.yaml`).toBe(true);
    expect(readText(`${SERVER_CONFIG_DIR}/${env}.yaml`), `${SERVER_CONFIG_DIR}/${env}.yaml: "# enable-template" (the server renders it)`).toMatch(/^#.*enable-template/m);
  });

  it("the server starts with scripts/temporal-server.ts's flags", () => {
    // npm run cluster's argument list: spawn(bins.server, ['--root', root, '--config', …, 'start'])
    const source = readText('scripts/temporal-server.ts');
    const list = /spawn\(bins\.server, \[([^\]]*)\]/.exec(source)?.[1];
    expect(list, "scripts/temporal-server.ts: spawn(bins.server, […]) not found").toBeDefined();
    const theirs = [...list!.matchAll(/'([^']*)'|(\w+)/g)].map((m) => m[1] ?? `<${m[2]}>`);
    const ours = temporal.commandLine.replace(/^[\s\S]*?\btemporal-server /, '').split(/\s+/);
    // --root and --config name where deploy/temporal is on each host; the rest must match
    const portable = (args: string[]) => args.filter((a, i) => !['--root', '--config'].includes(a) && !['--root', '--config'].includes(args[i - 1] ?? ''));
    expect(portable(ours), `${COMPOSE}: services.temporal.command: temporal-server's flags as in scripts/temporal-server.ts`).toEqual(portable(theirs));
  });

  it('the dynamic config is deploy/temporal-dynamicconfig.yaml', () => {
    const target = mountTarget(temporal, DYNAMIC_CONFIG);
    expect(target, `${COMPOSE}: services.temporal.volumes: ${DYNAMIC_CONFIG}`).toBeDefined();
    expect(temporal.environment.DYNAMIC_CONFIG_FILE_PATH, `${COMPOSE}: services.temporal.environment.DYNAMIC_CONFIG_FILE_PATH: where ${DYNAMIC_CONFIG} is mounted`).toBe(target);
  });

  it("the UI reads deploy/temporal-ui.yaml, npm run cluster's UI config, as the image's own", () => {
    const ui = [...services.values()].find((s) => s.image?.startsWith('temporalio/ui:'))!;
    // the image's server starts with --env docker: it reads config/docker.yaml, which the file replaces
    expect(mountTarget(ui, 'deploy/temporal-ui.yaml'), `${COMPOSE}: services.${ui.name}.volumes: deploy/temporal-ui.yaml`).toBe('/home/ui-server/config/docker.yaml');
    expect(readText('deploy/temporal-ui.yaml'), 'deploy/temporal-ui.yaml: "# enable-template"').toMatch(/^# enable-template/);
  });

  it.each([['schema', schema], ['namespace', namespace]] as const)('temporal-setup.sh %s is deploy/temporal-setup.sh', (mode, s) => {
    const target = mountTarget(s, SETUP_SCRIPT);
    expect(target, `${COMPOSE}: services.${s.name}.volumes: ${SETUP_SCRIPT}`).toBeDefined();
    expect(s.commandLine, `${COMPOSE}: services.${s.name}: entrypoint + command`).toBe(`sh ${target} ${mode}`);
  });

  it('runs in order: database, schema, server, namespace, then the API and the workers', () => {
    const pg = schema.environment.POSTGRES_SEEDS ?? '';
    expect(schema.dependsOn[pg], `${COMPOSE}: services.${schema.name}.depends_on.${pg}.condition`).toBe('service_healthy');
    expect(temporal.dependsOn[schema.name], `${COMPOSE}: services.temporal.depends_on.${schema.name}.condition`).toBe('service_completed_successfully');
    expect(namespace.dependsOn.temporal, `${COMPOSE}: services.${namespace.name}.depends_on.temporal.condition`).toBe('service_healthy');
    for (const { s } of apps) expect(s.dependsOn[namespace.name], `${COMPOSE}: services.${s.name}.depends_on.${namespace.name}.condition`).toBe('service_completed_successfully');
  });

  it('the schema and the server use one database, whose credentials are deploy/temporal.env', () => {
    for (const key of ['POSTGRES_SEEDS', 'DB_PORT']) expect(temporal.environment[key], `${COMPOSE}: services.temporal.environment.${key} (as services.${schema.name})`).toBe(schema.environment[key]);
    const db = service(schema.environment.POSTGRES_SEEDS ?? '');
    expect(db.environment.POSTGRES_USER, `${COMPOSE}: services.${db.name}.environment.POSTGRES_USER = POSTGRES_USER of ${TEMPORAL_ENV}`).toBe(temporalEnv.POSTGRES_USER);
    expect(db.environment.POSTGRES_PASSWORD, `${COMPOSE}: services.${db.name}.environment.POSTGRES_PASSWORD = POSTGRES_PWD of ${TEMPORAL_ENV}`).toBe(temporalEnv.POSTGRES_PWD);
  });

  it('every Temporal setting is one the config template or the setup script reads', () => {
    const read = new Set([
      ...[...clusterTemplate.matchAll(/env "([A-Z0-9_]+)"/g)].map((m) => m[1]),
      ...[...readText(SETUP_SCRIPT).matchAll(/\$\{?([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]),
      'TEMPORAL_ADDRESS', // the temporal CLI's own
    ]);
    for (const key of Object.keys(temporalEnv)) expect(read.has(key), `${TEMPORAL_ENV}: ${key} is read by neither ${SERVER_CONFIG_DIR}/cluster.yaml nor ${SETUP_SCRIPT}`).toBe(true);
    for (const s of [temporal, schema, namespace]) {
      for (const key of Object.keys(s.environment)) expect(read.has(key), `${COMPOSE}: services.${s.name}.environment.${key} is read by neither ${SERVER_CONFIG_DIR}/cluster.yaml nor ${SETUP_SCRIPT}`).toBe(true);
    }
  });

  it("DELEGATE_SEARCH_ATTRIBUTES is workflows/search-attributes.ts's list", () => {
    const listed = (temporalEnv.DELEGATE_SEARCH_ATTRIBUTES ?? '').split(/\s+/).filter(Boolean).sort();
    const defined = Object.entries(SEARCH_ATTRIBUTE_DEFINITIONS).map(([name, type]) => `${name}:${type}`).sort();
    expect(listed, `${TEMPORAL_ENV}: DELEGATE_SEARCH_ATTRIBUTES = SEARCH_ATTRIBUTE_DEFINITIONS (workflows/search-attributes.ts)`).toEqual(defined);
  });

  it("every TEMPORAL_ADDRESS is the server's frontend, which is published", () => {
    expect(frontendPort, `${SERVER_CONFIG_DIR}/cluster.yaml: FRONTEND_GRPC_PORT's default`).toBeDefined();
    for (const s of services.values()) {
      const address = s.environment.TEMPORAL_ADDRESS;
      if (address !== undefined) expect(address, `${COMPOSE}: services.${s.name}.environment.TEMPORAL_ADDRESS`).toBe(`temporal:${frontendPort}`);
    }
    expect(JSON.stringify(temporal.raw.ports ?? []), `${COMPOSE}: services.temporal.ports: ${frontendPort}`).toContain(`${frontendPort}:${frontendPort}`);
  });
});

describe("the worker's and the API's settings are deploy/'s", () => {
  const known = new Set<string>([...Object.keys(ConfigSchema.shape), ...TRACING_ENV_KEYS]);

  it('telemetry/tracing.ts lists every OTEL_* variable it reads', () => {
    const read = [...readText('telemetry/tracing.ts').matchAll(/env\.(OTEL_[A-Z_]+)/g)].map((m) => m[1]!);
    for (const key of read) expect(TRACING_ENV_KEYS as readonly string[], `telemetry/tracing.ts: ${key} missing from TRACING_ENV_KEYS`).toContain(key);
  });

  it.each(apps.map(({ s, envFile }) => [s.name, s, envFile] as const))('%s', (name, s, envFile) => {
    expect(s.envFiles, `${COMPOSE}: services.${name}.env_file`).toContain(envFile);
    const fromFile = readEnvFile(envFile);
    for (const key of Object.keys(fromFile)) expect(known.has(key), `${envFile}: ${key} is not a key of schemas/config.ts nor an OTEL_* variable telemetry/tracing.ts reads`).toBe(true);
    for (const key of Object.keys(s.environment)) {
      expect(known.has(key), `${COMPOSE}: services.${name}.environment.${key} is not a key of schemas/config.ts nor an OTEL_* variable telemetry/tracing.ts reads`).toBe(true);
    }
    // the whole environment is a valid configuration
    let invalid = '';
    try {
      loadConfig(processEnv(s));
    } catch (e) {
      invalid = (e as Error).message;
    }
    expect(invalid, `${COMPOSE}: services.${name} with ${envFile}`).toBe('');
  });

  it("the API and the workers agree, and use deploy/temporal.env's namespace", () => {
    const [worker, api] = apps.map(({ s }) => processEnv(s)) as [Record<string, string>, Record<string, string>];
    for (const key of SHARED_KEYS) expect(api[key], `${API_ENV} / ${WORKER_ENV}: ${key} differs between the API and the workers`).toBe(worker[key]);
    for (const { s, envFile } of apps) {
      expect(processEnv(s).TEMPORAL_NAMESPACE ?? 'default', `${envFile}: TEMPORAL_NAMESPACE = DEFAULT_NAMESPACE of ${TEMPORAL_ENV}`).toBe(temporalEnv.DEFAULT_NAMESPACE ?? 'default');
    }
  });

  it('Prometheus scrapes the ports the API and the workers listen on', () => {
    const prometheus = readText('deploy/prometheus.yml');
    const worker = processEnv(service('worker'));
    const api = processEnv(service('api'));
    expect(prometheus, `deploy/prometheus.yml: api:<PORT of services.api>`).toContain(`"api:${api.PORT}"`);
    expect(prometheus, `deploy/prometheus.yml: worker port = DELEGATE_WORKER_METRICS_PORT of services.worker`).toMatch(new RegExp(`names: \\["worker"\\][\\s\\S]*?port: ${worker.DELEGATE_WORKER_METRICS_PORT}\\b`));
  });
});

describe('no setting is given twice', () => {
  it.each([...services.values()].filter((s) => s.envFiles.length > 0).map((s) => [s.name, s] as const))('%s', (name, s) => {
    for (const file of s.envFiles) {
      const keys = Object.keys(readEnvFile(file));
      for (const key of Object.keys(s.environment)) expect(keys, `${COMPOSE}: services.${name}.environment.${key} is also in ${file}`).not.toContain(key);
    }
  });
});
