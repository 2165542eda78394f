// Lint: typescript-eslint with type information; workflows are held to Temporal's determinism rules.
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', '**/dist/', 'packages/*/.build/', 'scratch/', 'bench/results/', 'test-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'cli/*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['workflows/**/*.ts', 'telemetry/workflow-*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflows are deterministic: no Node built-ins (do I/O in activities/).' })),
          patterns: [
            {
              group: ['pino', 'fastify', 'ajv', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'],
              message: 'Workflows import only @temporalio/workflow, pure helpers and types.',
            },
          ],
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(activities|schemas|workers|record|api|config|telemetry|cli|packages|mcp|scripts)(/.*)?$',
              allowTypeImports: true,
              message:
                'Workflows import values only from @temporalio/workflow, workflows/ and core/ (every run evaluates them: a unit test bundles and checks); other folders as types.',
            },
            { regex: '^(zod|ajv)(/.*)?$', allowTypeImports: true, message: 'Workflow runs stay zod- and ajv-free.' },
          ],
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' },
        { name: 'setInterval', message: 'Use sleep() in a loop.' },
        { name: 'process', message: 'No process in workflows.' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Math.random is replaced by the sandbox; say so explicitly or use workflow ids.' },
      ],
    },
  },
  // workflows/ and core/ are evaluated once per worker context and shared by every run
  // (workers/worker.ts preloadModules): no module-level variable may carry one run's state to another
  {
    files: ['workflows/**/*.ts', 'core/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "Program > VariableDeclaration[kind!='const'], Program > ExportNamedDeclaration > VariableDeclaration[kind!='const']",
          message:
            "Shared by every workflow run: no module-level let or var (keep a run's state in the run: its objects, or its own globals as log-context.ts does).",
        },
      ],
    },
  },
  // layers: core/ is pure; contracts/, activities/, record/ and telemetry/ import nothing above them; the API no worker module
  {
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: nodeBuiltins.map((name) => ({ name, message: 'core/ is pure: no Node built-ins.' })) }],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./(?!schemas/|schemas$).*$',
              message: 'core/ imports only core/ (and types of schemas/): every layer above imports it.',
            },
            { regex: '^\\.\\./.*$', allowTypeImports: true, message: 'core/ imports values only from core/ (types of schemas/).' },
            // the SDK's common package is pure (search-attribute keys); nothing else
            {
              regex: '^(?!\\.|@temporalio/common$).*$',
              allowTypeImports: true,
              message: 'core/ imports no package values: pure, zod-free rules.',
            },
          ],
        },
      ],
    },
  },
  // what crosses a process or Temporal boundary is in contracts/: below workflows/ and activities/, above core/ and schemas/
  {
    files: ['contracts/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(?!schemas|core)[^/.]+(/.*)?$',
              message: 'contracts/ imports only schemas/ and core/ (types) and itself: every layer above imports it.',
            },
            {
              regex: '^(\\.\\./)+(schemas|core)(/.*)?$',
              allowTypeImports: true,
              message: 'contracts/ holds types and message definitions: no values of schemas/ or core/.',
            },
            {
              regex: '^(?!\\.|@temporalio/workflow$).*$',
              allowTypeImports: true,
              message: 'contracts/ imports values only from @temporalio/workflow (defineSignal, defineQuery, defineUpdate).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['activities/**/*.ts', 'record/**/*.ts', 'telemetry/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(workflows|api|workers|mcp|cli)(/.*)?$',
              message:
                'Activities, the record and telemetry import nothing of workflows/ or the processes above them, types neither: what crosses is in contracts/, shared rules in core/.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['mcp/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+api(/.*)?$',
              message: 'mcp/ imports nothing of api/ (the API mounts the MCP server, with its in-process backend in api/mcp-backend.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['api/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+workers(/.*)?$',
              allowTypeImports: true,
              message: 'The API imports no workers/ module: configuration and tenants are in config/, names in core/.',
            },
            // the signals and updates the API sends are in contracts/messages.ts: rules the API shares live in core/
            {
              regex: '^(\\.\\./)+workflows(/.*)?$',
              allowTypeImports: true,
              message:
                'The API imports no workflow values: messages are in contracts/, shared rules in core/, the workflow names in core/names.ts.',
            },
          ],
        },
      ],
    },
  },
  // the client package installs alone: its source imports values only from itself and eventsource-parser
  {
    files: ['packages/client/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./|eventsource-parser$).*$',
              allowTypeImports: true,
              message:
                '@delegate/client has one dependency (eventsource-parser): values only from the package itself; service types through service-types.ts.',
            },
          ],
        },
      ],
    },
  },
  // cli/ and mcp/ use the client as a consumer does: its public entry only
  {
    files: ['cli/**/*.ts', 'mcp/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '(^|/)packages/client/|^(\\.\\./)+client(/|$)', message: "Import the client's public entry: 'delegate/client'." },
          ],
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.ts', 'bench/**/*.ts', 'test/chaos/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
