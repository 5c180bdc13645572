// Lint rules for the whole tree. Beyond the recommended sets: promises are awaited or marked `void`, type-only imports
// say so, no file imports itself through a loop, and the replayed zones (src/workflows/, src/shared/) import nothing
// that does I/O or is nondeterministic (Temporal's bundler rejects some of it at worker start; this says it at once).
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import prettier from 'eslint-config-prettier';

const nodeBuiltins = [...builtinModules.filter((name) => !name.startsWith('_')), ...builtinModules.map((name) => `node:${name}`)];

/** Imports the replayed zones may not make: Node built-ins, Temporal's Node-side packages, I/O libraries. */
const replayedZoneImports = {
  paths: [
    ...nodeBuiltins.map((name) => ({ name, message: 'Workflow code is replayed in a sandbox: no Node built-ins.' })),
    ...['@temporalio/client', '@temporalio/worker', '@temporalio/activity', '@temporalio/testing'].map((name) => ({
      name,
      message: 'Workflow code may use @temporalio/workflow and @temporalio/common only.',
    })),
    ...['openai', 'undici'].map((name) => ({ name, message: 'Workflow code does no I/O: call an activity.' })),
  ],
};

/** A relative import of one of the Node side's folders, from anywhere below src/. */
const nodeZoneImport = '^(\\.\\./)+(client|worker|cli|web|temporal|codec)(\\.js)?(/|$)';
const activitiesImport = '^(\\.\\./)+activities(/|$)';
const workflowsImport = '^(\\.\\./)+workflows(/|$)';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'scratch/**', 'bench/results/**', '.arbor/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['bin/*.js', 'examples/*/*.js', 'eslint.config.js', 'test/support/mcp/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-self-import': 'error',
    },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          ...replayedZoneImports,
          patterns: [
            {
              regex: activitiesImport,
              allowTypeImports: true,
              message: 'Activities run on the Node side: import their types only, and call them through proxyActivities.',
            },
            { regex: nodeZoneImport, message: 'Workflow code imports src/shared/ and src/workflows/ only.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          ...replayedZoneImports,
          patterns: [
            ...[workflowsImport, activitiesImport, nodeZoneImport].map((regex) => ({
              regex,
              message: 'src/shared/ is the bottom zone: it imports nothing of the others.',
            })),
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/workflows/**', 'src/shared/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: workflowsImport,
              message: 'The Node side does not import workflow code: the types it needs live in src/shared/ (workflow-types.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    // node:test's describe and it return promises the runner awaits itself.
    files: ['examples/testing/node-test/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
  prettier,
);
