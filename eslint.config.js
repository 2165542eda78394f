// Lint: typescript-eslint with type information; workflows are held to Temporal's determinism rules.
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'dist/', 'scratch/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: { allowDefaultProject: ['*.js', 'cli/*.js'] }, tsconfigRootDir: import.meta.dirname } },
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
            { group: ['pino', 'fastify', 'ajv', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'], message: 'Workflows import only @temporalio/workflow, pure helpers and types.' },
          ],
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^\\.\\./(activities(/.*)?|schemas(/index)?)$', allowTypeImports: true, message: 'Import activities and schemas as types only in workflows.' }] },
      ],
      'no-restricted-globals': ['error', { name: 'setTimeout', message: 'Use sleep() from @temporalio/workflow.' }, { name: 'setInterval', message: 'Use sleep() in a loop.' }, { name: 'process', message: 'No process in workflows.' }],
      'no-restricted-properties': ['error', { object: 'Math', property: 'random', message: 'Math.random is replaced by the sandbox; say so explicitly or use workflow ids.' }],
    },
  },
  {
    files: ['scripts/**/*.ts', 'bench/**/*.ts', 'test/chaos/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
